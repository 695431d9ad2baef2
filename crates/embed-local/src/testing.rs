//! For tests that need a real model (feature `testing`): load an installed catalog model, or
//! skip — unless `REARVIEW_REQUIRE_MODELS=1` (set by the test script), which turns a missing model
//! into a failure so CI can never pass by skipping.

use std::path::PathBuf;

use crate::{LoadOptions, LocalEmbedder, installed, model_dir};

/// `$REARVIEW_MODELS_DIR`, else `~/.cache/rearview/models` (where `rearview models fetch` puts
/// models by default).
pub fn models_dir() -> PathBuf {
    std::env::var_os("REARVIEW_MODELS_DIR").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/rearview/models")
    })
}

/// Whether a missing model must fail the test instead of skipping it.
pub fn models_required() -> bool {
    std::env::var("REARVIEW_REQUIRE_MODELS").is_ok_and(|v| v == "1")
}

/// The installed catalog model `name`, or `None` (with a SKIPPED line on stderr) when it is not
/// installed and models are not required.
///
/// # Panics
/// When the model is missing and required, or installed but fails to load.
pub fn installed_or_skip(name: &str) -> Option<LocalEmbedder> {
    let models = models_dir();
    if installed(&models, name).is_none() {
        assert!(
            !models_required(),
            "model {name} is not installed in {}; run `rearview models fetch {name}`",
            models.display()
        );
        #[expect(clippy::print_stderr, reason = "tests report what they skipped")]
        {
            eprintln!(
                "SKIPPED: model {name} not installed in {} (run `rearview models fetch {name}`)",
                models.display()
            );
        }
        return None;
    }
    Some(
        LocalEmbedder::load(&model_dir(&models, name), LoadOptions::default())
            .expect("installed model loads"),
    )
}
