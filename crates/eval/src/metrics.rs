//! Retrieval metrics over one ranked list, and their averages.

use std::collections::{BTreeMap, HashSet};

/// The cut-offs every metric is reported at.
pub const KS: [usize; 6] = [1, 3, 5, 10, 25, 50];

/// Metric names, in report order.
pub const METRICS: [&str; 5] = ["frac", "recall_any", "recall_all", "ndcg", "mrr"];

/// The one metric of a question about something never stored (no gold memory): 1 when the
/// answer is empty, else 0 (under k = 50, like `mrr`).
pub const EMPTY: &str = "empty";

/// One question's scores: `metric → k → value` (`mrr` has a single entry under k = 50).
pub type Scores = BTreeMap<&'static str, BTreeMap<usize, f64>>;

/// Scores `ranked` against `gold`. Each entry of `ranked` is one retrieved memory (best first)
/// with the dataset ids it stands for: usually one, several when records were merged on store;
/// all of them sit at that memory's rank.
///
/// A question without gold (about something never stored) scores only [`EMPTY`]: whether
/// nothing came back.
pub fn score(ranked: &[Vec<String>], gold: &[String]) -> Scores {
    if gold.is_empty() {
        let empty = f64::from(u8::from(ranked.is_empty()));
        return Scores::from([(EMPTY, BTreeMap::from([(50, empty)]))]);
    }
    let gold: HashSet<&str> = gold.iter().map(String::as_str).collect();
    // Gold ids found at each rank (an id counts once, at its best rank).
    let mut seen: HashSet<&str> = HashSet::new();
    let hits: Vec<usize> = ranked
        .iter()
        .map(|ids| {
            ids.iter().filter(|id| gold.contains(id.as_str()) && seen.insert(id.as_str())).count()
        })
        .collect();
    let mut out = Scores::new();
    for k in KS {
        let found: usize = hits.iter().take(k).sum();
        let frac = found as f64 / gold.len() as f64;
        out.entry("frac").or_default().insert(k, frac);
        out.entry("recall_any").or_default().insert(k, f64::from(u8::from(found > 0)));
        out.entry("recall_all").or_default().insert(k, f64::from(u8::from(found == gold.len())));
        let dcg: f64 =
            hits.iter().take(k).enumerate().map(|(i, n)| *n as f64 / ((i + 2) as f64).log2()).sum();
        let ideal: f64 = (0..gold.len().min(k)).map(|i| 1.0 / ((i + 2) as f64).log2()).sum();
        out.entry("ndcg")
            .or_default()
            .insert(k, if ideal > 0.0 { (dcg / ideal).min(1.0) } else { 0.0 });
    }
    let rr = hits.iter().position(|n| *n > 0).map_or(0.0, |p| 1.0 / (p + 1) as f64);
    out.entry("mrr").or_default().insert(50, rr);
    out
}

/// The mean of several questions' scores, each metric over the questions that have it
/// (questions about something never stored have only [`EMPTY`], the others everything else).
pub fn mean(all: &[&Scores]) -> Scores {
    let mut sums: BTreeMap<&'static str, BTreeMap<usize, (f64, usize)>> = BTreeMap::new();
    for scores in all {
        for (metric, by_k) in *scores {
            for (k, v) in by_k {
                let (sum, n) = sums.entry(metric).or_default().entry(*k).or_insert((0.0, 0));
                *sum += v;
                *n += 1;
            }
        }
    }
    sums.into_iter()
        .map(|(metric, by_k)| {
            (metric, by_k.into_iter().map(|(k, (sum, n))| (k, sum / n as f64)).collect())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    fn ranks(v: &[&str]) -> Vec<Vec<String>> {
        v.iter().map(|s| vec![(*s).to_owned()]).collect()
    }

    #[test]
    fn metrics_by_hand() {
        let s = score(&ranks(&["x", "a", "y", "b"]), &ids(&["a", "b", "c"]));
        assert_eq!(s["frac"][&1], 0.0);
        assert!((s["frac"][&3] - 1.0 / 3.0).abs() < 1e-12);
        assert!((s["frac"][&5] - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(s["recall_any"][&3], 1.0);
        assert_eq!(s["recall_all"][&50], 0.0);
        assert_eq!(s["mrr"][&50], 0.5);
        let ideal = 1.0 + 1.0 / 3f64.log2() + 0.5;
        let dcg = 1.0 / 3f64.log2() + 1.0 / 5f64.log2();
        assert!((s["ndcg"][&5] - dcg / ideal).abs() < 1e-12);
        let perfect = score(&ranks(&["a"]), &ids(&["a"]));
        assert_eq!((perfect["ndcg"][&1], perfect["recall_all"][&1]), (1.0, 1.0));
        // A merged memory stands for both of its ids at its rank.
        let merged = score(&[vec!["a".to_owned(), "b".to_owned()]], &ids(&["b", "a"]));
        assert_eq!((merged["frac"][&1], merged["ndcg"][&1]), (1.0, 1.0));
        let m = mean(&[&s, &perfect]);
        assert_eq!(m["mrr"][&50], 0.75);
    }

    #[test]
    fn a_question_about_nothing_stored_scores_an_empty_answer() {
        assert_eq!(score(&[], &[]), Scores::from([(EMPTY, BTreeMap::from([(50, 1.0)]))]));
        let answered = score(&ranks(&["x"]), &[]);
        assert_eq!(answered[EMPTY][&50], 0.0);
        assert!(!answered.contains_key("frac"));
        // Each metric is averaged over the questions that have it.
        let named = score(&ranks(&["a"]), &ids(&["a"]));
        let m = mean(&[&named, &answered, &score(&[], &[])]);
        assert_eq!((m["frac"][&1], m[EMPTY][&50]), (1.0, 0.5));
    }
}
