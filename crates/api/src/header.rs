//! The namespace header, `X-Rearview-Namespace`, as every HTTP transport reads it.
//!
//! Header values travel as bytes, and many clients (browsers' `fetch`, `curl` scripts, HTTP
//! libraries that follow RFC 9110) only send ASCII there. So the value is **percent-encoded
//! UTF-8**: `项目` is sent as `%E9%A1%B9%E7%9B%AE`, a literal `%` as `%25`. A value sent as raw
//! UTF-8 bytes is accepted too. The decoded text is then checked like any namespace.

use percent_encoding::percent_decode;
use rearview_core::InputError;

/// The header's name, as clients write it.
pub const NAMESPACE_HEADER: &str = "X-Rearview-Namespace";

/// The namespace a header value names (see the module docs): raw UTF-8, percent-decoded.
pub fn namespace_header(value: &[u8]) -> Result<String, InputError> {
    let bad = |what: &str| {
        InputError::new(
            NAMESPACE_HEADER,
            format!(
                "{what}; send the namespace as percent-encoded UTF-8 (项目 as %E9%A1%B9%E7%9B%AE, % as %25)"
            ),
        )
    };
    std::str::from_utf8(value).map_err(|_| bad("is not UTF-8"))?;
    let decoded = percent_decode(value)
        .decode_utf8()
        .map_err(|_| bad("percent-decodes to bytes that are not UTF-8"))?;
    Ok(decoded.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_encoded_and_raw_utf8_name_the_same_namespace() {
        assert_eq!(namespace_header(b"team-a").unwrap(), "team-a");
        assert_eq!(namespace_header(b"%E9%A1%B9%E7%9B%AE").unwrap(), "项目");
        assert_eq!(namespace_header("项目".as_bytes()).unwrap(), "项目");
        assert_eq!(namespace_header(b"50%25 off").unwrap(), "50% off");
        // A `%` not followed by two hex digits stays as it is.
        assert_eq!(namespace_header(b"100%").unwrap(), "100%");
        let err = namespace_header(b"%FF%FE").unwrap_err();
        assert!(err.to_string().contains("X-Rearview-Namespace"), "{err}");
        assert!(namespace_header(&[0xE9, 0xA1]).is_err(), "a cut UTF-8 sequence");
    }
}
