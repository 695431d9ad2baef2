//! Scratch: convert an E5S1 image and embed lines from stdin ("q\ttext" / "p\ttext").
#![allow(missing_docs, clippy::print_stdout)]
use std::io::BufRead;
use rearview_embed::TextKind;
use rearview_embed_local::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::Path::new(&args[2]);
    if args[1] != "-" {
        let image = std::fs::read(&args[1]).unwrap();
        let t = std::time::Instant::now();
        convert_e5s1(&image, dir, &mut |_, _| {}).unwrap();
        let m = ModelManifest { id: "probe".into(), query_prefix: "query: ".into(), passage_prefix: "passage: ".into(), pooling: Pooling::Mean, max_tokens: 512, source: String::new(), files: Default::default() };
        m.write(dir).unwrap();
        eprintln!("converted in {:?}", t.elapsed());
    }
    let t = std::time::Instant::now();
    let e = LocalEmbedder::load(dir, LoadOptions::default()).unwrap();
    eprintln!("loaded in {:?}", t.elapsed());
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let kind = if line.starts_with('q') { TextKind::Query } else { TextKind::Passage };
        let v = e.embed_blocking(&[line[2..].to_string()], kind).unwrap().remove(0);
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let s: Vec<String> = v.iter().map(|x| format!("{}", x / n)).collect();
        println!("[{}]", s.join(","));
    }
}
