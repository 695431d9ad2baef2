use chrono::{TimeZone, Utc};

use super::*;
use crate::testing::{id, ids, scored};

fn day(d: u32) -> Timestamp {
    Utc.with_ymd_and_hms(2024, 5, d, 12, 0, 0).unwrap()
}

fn statement(text: &str, d: u32) -> Statement<'_> {
    Statement { text, occurred_at: day(d), memory_type: MemoryType::Episodic }
}

const NEAR: Option<f32> = Some(0.9);

/// Berlin (1, day 1), the kids (2, day 2), the move to Lisbon (3, day 9), and `fourth` (4).
fn berlin_kids_lisbon(fourth: Option<Statement<'static>>) -> Statements<'static> {
    let three = [
        (id(1), statement("I live in Berlin, in a flat by Tempelhofer Feld.", 1)),
        (id(2), statement("I have two kids, aged 7 and 10.", 2)),
        (id(3), statement("I moved to Lisbon last month and I'm renting in Alfama.", 9)),
    ];
    Statements::read(three.into_iter().chain(fourth.map(|s| (id(4), s))))
}

/// Cosines: the pairs listed have theirs, every other pair 0.5 (far).
fn cosines(pairs: &[(u128, u128, f32)]) -> impl Fn(MemoryId, MemoryId) -> Option<f32> + '_ {
    move |a, b| {
        let listed =
            pairs.iter().find(|&&(x, y, _)| (a, b) == (id(x), id(y)) || (a, b) == (id(y), id(x)));
        Some(listed.map_or(0.5, |&(_, _, cosine)| cosine))
    }
}

/// Cosines: the pairs listed are near (0.9), every other pair far (0.5).
fn near_pairs(pairs: &[(u128, u128)]) -> impl Fn(MemoryId, MemoryId) -> Option<f32> {
    let near: Vec<(u128, u128, f32)> = pairs.iter().map(|&(x, y)| (x, y, 0.9)).collect();
    move |a, b| cosines(&near)(a, b)
}

#[test]
fn a_newer_statement_takes_the_place_of_the_one_it_updates() {
    // A stated change with no subject term in common: read because Berlin is clearly the
    // nearest older statement to Lisbon.
    let statements = berlin_kids_lisbon(None);
    let ranked = vec![scored(1, 0.9), scored(2, 0.5), scored(3, 0.4)];
    let near = near_pairs(&[(1, 3)]);
    let (out, lifted) =
        newer_first(ranked.clone(), &statements, &near, &near, 5, &Succession::DEFAULT);
    assert_eq!(ids(&out), [3, 1, 2]);
    assert_eq!(lifted, HashMap::from([(id(3), id(1))]));
    assert_eq!(out[0].score, 0.9, "it takes the older statement's score");
    assert!(out[0].explanation.description.contains(&id(1).to_string()));
    assert_eq!(out[0].explanation.details[0].value, 0.4, "its own score stays explained");
    // Berlin is not clearly the nearest older statement to Lisbon (the kids are nearly as
    // near), but Lisbon is clearly the nearest later one to Berlin: read from that side.
    // (Lisbon is not clearly the kids' nearest later one: a bike is nearly as near.)
    let statements = berlin_kids_lisbon(Some(statement("I have a bike with a child seat.", 10)));
    let ranked = vec![scored(1, 0.9), scored(2, 0.5), scored(3, 0.4), scored(4, 0.3)];
    let one_side = cosines(&[(1, 3, 0.9), (2, 3, 0.895), (2, 4, 0.89)]);
    let (out, lifted) =
        newer_first(ranked.clone(), &statements, &one_side, &one_side, 5, &Succession::DEFAULT);
    assert_eq!((ids(&out), lifted), (vec![3, 1, 2, 4], HashMap::from([(id(3), id(1))])));
    // Clear from neither side: the kids are as near to Lisbon, and a later change of phone
    // plan is as near to Berlin (and to the kids). A stated change alone moves nothing.
    let statements = berlin_kids_lisbon(Some(statement("I switched to a cheaper phone plan.", 10)));
    let ranked = vec![scored(1, 0.9), scored(2, 0.5), scored(3, 0.4), scored(4, 0.3)];
    let neither = near_pairs(&[(1, 3), (2, 3), (1, 4), (2, 4)]);
    let (out, lifted) =
        newer_first(ranked, &statements, &neither, &neither, 5, &Succession::DEFAULT);
    assert_eq!((ids(&out), lifted.len()), (vec![1, 2, 3, 4], 0));
}

#[test]
fn a_change_read_by_nearness_updates_one_older_statement() {
    // Lisbon is the nearest later statement to Berlin and the only one to the kids, which
    // rank first: it takes the place of the nearer of the two, and of neither on a tie.
    let statements = berlin_kids_lisbon(None);
    let ranked = vec![scored(2, 0.9), scored(1, 0.8), scored(3, 0.4)];
    let case = |pairs: &[(u128, u128, f32)]| {
        let near = cosines(pairs);
        let (out, lifted) =
            newer_first(ranked.clone(), &statements, &near, &near, 5, &Succession::DEFAULT);
        (ids(&out), lifted)
    };
    let berlin = case(&[(1, 3, 0.92), (2, 3, 0.9)]);
    assert_eq!(berlin, (vec![2, 3, 1], HashMap::from([(id(3), id(1))])));
    assert_eq!(case(&[(1, 3, 0.9), (2, 3, 0.9)]), (vec![2, 1, 3], HashMap::new()), "a tie");
}

#[test]
fn a_change_only_marked_needs_the_two_nearest_from_both_sides() {
    // `started` marks a change and names nothing the older text says.
    let statements = Statements::read([
        (id(1), statement("I'm vegetarian.", 1)),
        (id(2), statement("We have a golden retriever named Biscuit.", 2)),
        (id(3), statement("I started eating meat again last year.", 9)),
        (id(4), statement("I adopted a second dog.", 10)),
    ]);
    let ranked = vec![scored(1, 0.9), scored(2, 0.5), scored(3, 0.4), scored(4, 0.3)];
    let case = |pairs: &[(u128, u128)]| {
        let near = near_pairs(pairs);
        ids(&newer_first(ranked.clone(), &statements, &near, &near, 5, &Succession::DEFAULT).0)
    };
    assert_eq!(case(&[(1, 3)]), [3, 1, 2, 4], "each the other's nearest");
    // The meat is as near to the dog as to being vegetarian: not clearly its update.
    assert_eq!(case(&[(1, 3), (2, 3)]), [1, 2, 3, 4], "not the nearest older");
    // Being vegetarian is as near to the second dog, which happened later.
    assert_eq!(case(&[(1, 3), (1, 4)]), [1, 2, 3, 4], "not the nearest later");
}

#[test]
fn chains_read_from_the_latest_back_also_past_the_window() {
    // Each a change of the port of the API service (a subject both name): 2 updates 1, 3
    // updates 2; only 1 is in the window, and 1 and 3 are far in meaning.
    let statements = Statements::read([
        (id(1), statement("API 服务监听 8080 端口。", 1)),
        (id(2), statement("API 服务的端口改成了 9090。", 5)),
        (id(3), statement("API 服务的端口又改成了 9443。", 9)),
        (id(4), statement("每晚两点自动备份数据库。", 3)),
    ]);
    let ranked = vec![scored(1, 0.8), scored(4, 0.7), scored(2, 0.3), scored(3, 0.2)];
    let near = near_pairs(&[(1, 2), (2, 3)]);
    let (out, lifted) = newer_first(ranked, &statements, &near, &near, 1, &Succession::DEFAULT);
    assert_eq!(ids(&out), [3, 2, 1, 4]);
    assert_eq!(lifted, HashMap::from([(id(2), id(1)), (id(3), id(2))]));
    assert!(out.windows(2).all(|w| w[0].score >= w[1].score), "scores stay sorted");
}

#[test]
fn nothing_moves_without_a_change_near_in_meaning_of_one_tier_and_later() {
    let berlin = "I live in Berlin.";
    let lisbon = "I moved to Lisbon last month.";
    let case = |older: Statement<'static>, newer: Statement<'static>, near: Option<f32>| {
        let statements = Statements::read([(id(1), older), (id(2), newer)]);
        let ranked = vec![scored(1, 0.9), scored(2, 0.4)];
        ids(&newer_first(ranked, &statements, |_, _| near, |_, _| near, 5, &Succession::DEFAULT).0)
    };
    assert_eq!(case(statement(berlin, 1), statement(lisbon, 9), NEAR), [2, 1]);
    assert_eq!(case(statement(berlin, 1), statement(lisbon, 9), Some(0.7)), [1, 2], "far");
    assert_eq!(case(statement(berlin, 9), statement(lisbon, 1), NEAR), [1, 2], "older");
    let semantic = Statement { memory_type: MemoryType::Semantic, ..statement(lisbon, 9) };
    assert_eq!(case(statement(berlin, 1), semantic, NEAR), [1, 2], "another tier");
    let plan = statement("I'm going to move to Lisbon next year.", 9);
    assert_eq!(case(statement(berlin, 1), plan, NEAR), [1, 2], "a plan is no change");
    let story = statement(
        "We moved to Lisbon. The flat is small, the light is lovely, the neighbours are \
         loud, and the tram goes right past the window every morning at six.",
        9,
    );
    assert_eq!(case(statement(berlin, 1), story, NEAR), [1, 2], "not a statement");
    // Keyword-only: a stated change needs a subject term both share.
    assert_eq!(case(statement(berlin, 1), statement(lisbon, 9), None), [1, 2]);
    let port = |t| statement(t, 1);
    let moved = statement("We switched the API server to port 9090.", 9);
    assert_eq!(case(port("The API server listens on port 8080."), moved, None), [2, 1]);
}

#[test]
fn only_the_returned_window_and_the_first_two_are_read_as_older_statements() {
    let statements = Statements::read([
        (id(1), statement("The office has a quiet room on the third floor.", 1)),
        (id(2), statement("I live in Berlin.", 2)),
        (id(3), statement("I moved to Lisbon last month.", 9)),
        (id(4), statement("Our cat is called Miso.", 3)),
    ]);
    // Only Berlin and Lisbon are near in meaning.
    let near = |a: MemoryId, b: MemoryId| {
        if a.max(b) == id(3) && a.min(b) == id(2) { NEAR } else { Some(0.5) }
    };
    let ranked = vec![scored(1, 0.9), scored(4, 0.6), scored(2, 0.5), scored(3, 0.4)];
    let case = |window| {
        ids(&newer_first(ranked.clone(), &statements, near, near, window, &Succession::DEFAULT).0)
    };
    assert_eq!(case(2), [1, 4, 2, 3], "Berlin is third");
    assert_eq!(case(3), [1, 4, 3, 2]);
    // The first two are always read (the near tie reads them as placed): a recall for one
    // memory places as one for two.
    let ranked = vec![scored(1, 0.9), scored(2, 0.5), scored(3, 0.4)];
    let one = newer_first(ranked.clone(), &statements, near, near, 1, &Succession::DEFAULT).0;
    assert_eq!(ids(&one), [1, 3, 2]);
}

#[test]
fn a_superseded_memory_is_answered_by_its_current_successor() {
    // 1 (superseded by 3) ranks first; 2 is unrelated; 4 is superseded with no visible
    // successor; 3 ranks last on its own words.
    let ranked = vec![scored(1, 0.9), scored(4, 0.7), scored(2, 0.5), scored(3, 0.2)];
    let current_of = HashMap::from([(id(1), Some(id(3))), (id(4), None)]);
    let (out, lifted) = current_first(ranked, &current_of);
    assert_eq!(ids(&out), [3, 2]);
    assert_eq!(out[0].score, 0.9, "it takes the superseded one's score");
    assert!(out[0].explanation.description.contains(&id(1).to_string()));
    assert_eq!(out[0].explanation.details.len(), 2, "its own score stays explained");
    assert_eq!(lifted, HashMap::from([(id(3), id(1))]));

    // A successor that is not a candidate at all still answers; one that ranks higher
    // keeps its place, and the superseded memory is only left out.
    let (out, _) = current_first(vec![scored(1, 0.9), scored(2, 0.5)], &current_of);
    assert_eq!(ids(&out), [3, 2]);
    let ranked = vec![scored(3, 0.95), scored(1, 0.9), scored(2, 0.5)];
    let (out, lifted) = current_first(ranked, &current_of);
    assert_eq!((ids(&out), out[0].score), (vec![3, 2], 0.95));
    assert!(lifted.is_empty());
    let (out, _) = current_first(vec![scored(2, 0.5)], &HashMap::new());
    assert_eq!(ids(&out), [2]);
}

#[test]
fn the_later_of_two_near_tied_statements_of_one_fact_answers_first() {
    // Nothing in the words marks a change; the two best answers are each other's nearest.
    let office = "I'm in the office five days a week.";
    let hybrid = "We went hybrid: office on Tuesdays and Thursdays only.";
    let parking = "Parking near the office costs £12 a day.";
    type Similarity<'p> = Box<dyn Fn(MemoryId, MemoryId) -> Option<f32> + 'p>;
    let case = |second: Statement<'static>, score: f32, near: Similarity<'_>| {
        let statements = Statements::read([
            (id(1), statement(office, 2)),
            (id(2), second),
            (id(3), statement(parking, 5)),
        ]);
        let ranked = vec![scored(1, 0.9), scored(2, score), scored(3, 0.3)];
        let (out, lifted) = newer_first(ranked, &statements, &near, &near, 5, &Succession::DEFAULT);
        (ids(&out), lifted, out)
    };
    let near =
        |pairs: &'static [(u128, u128, f32)]| -> Similarity<'static> { Box::new(cosines(pairs)) };
    let (order, lifted, out) = case(statement(hybrid, 9), 0.6, near(&[(1, 2, 0.9)]));
    assert_eq!((order, lifted), (vec![2, 1, 3], HashMap::from([(id(2), id(1))])));
    assert_eq!(out[0].score, 0.9, "it takes the older statement's score");
    assert!(out[0].explanation.description.contains(&id(1).to_string()));
    assert_eq!(out[0].explanation.details[0].value, 0.6, "its own score stays explained");
    assert_eq!(case(statement(hybrid, 9), 0.45, near(&[(1, 2, 0.9)])).0, [2, 1, 3], "half");

    let kept = |second: Statement<'static>, score: f32, near: Similarity<'static>| {
        let (order, lifted, _) = case(second, score, near);
        order == [1, 2, 3] && lifted.is_empty()
    };
    assert!(kept(statement(hybrid, 9), 0.4, near(&[(1, 2, 0.9)])), "under half the first's score");
    assert!(kept(statement(hybrid, 9), 0.6, near(&[(1, 2, 0.79)])), "not near in meaning");
    let parking_near_first = &[(1, 2, 0.9), (1, 3, 0.895)];
    assert!(kept(statement(hybrid, 9), 0.6, near(parking_near_first)), "not the first's nearest");
    let parking_near_second = &[(1, 2, 0.9), (2, 3, 0.895)];
    assert!(kept(statement(hybrid, 9), 0.6, near(parking_near_second)), "not the second's");
    assert!(kept(statement(hybrid, 1), 0.6, near(&[(1, 2, 0.9)])), "the older one second");
    let semantic = Statement { memory_type: MemoryType::Semantic, ..statement(hybrid, 9) };
    assert!(kept(semantic, 0.6, near(&[(1, 2, 0.9)])), "another tier");
    let plan = statement("We're going to go hybrid next year.", 9);
    assert!(kept(plan, 0.6, near(&[(1, 2, 0.9)])), "a plan is no change yet");
    assert!(kept(statement(hybrid, 9), 0.6, Box::new(|_, _| None)), "keyword-only");
}

#[test]
fn a_near_tie_is_read_on_centered_vectors_and_needs_no_word_in_common() {
    // `I freelance` and `I took a full-time job`: no subject term in common, each the other's
    // nearest once the direction all the candidates share is taken out.
    let statements = Statements::read([
        (id(1), statement("I freelance as a graphic designer.", 2)),
        (id(2), statement("I took a full-time job at Canva.", 9)),
        (id(3), statement("I need to renew my driver's license this year.", 5)),
    ]);
    let ranked = vec![scored(1, 0.9), scored(2, 0.8), scored(3, 0.7)];
    let raw = cosines(&[(1, 2, 0.88), (1, 3, 0.84), (2, 3, 0.83)]);
    let case = |centered: &dyn Fn(MemoryId, MemoryId) -> Option<f32>, config: &Succession| {
        ids(&newer_first(ranked.clone(), &statements, &raw, centered, 5, config).0)
    };
    let clear = cosines(&[(1, 2, 0.35), (1, 3, 0.27), (2, 3, 0.14)]);
    assert_eq!(case(&clear, &Succession::DEFAULT), [2, 1, 3]);
    // By the margin: the first is nearer to the third than 0.03 below the second.
    let unclear = cosines(&[(1, 2, 0.35), (1, 3, 0.33), (2, 3, 0.14)]);
    assert_eq!(case(&unclear, &Succession::DEFAULT), [1, 2, 3], "not clearly the nearest");
    // As before (raw cosines): a subject term in common is needed.
    let before = Succession { tie_margin: None, ..Succession::DEFAULT };
    assert_eq!(case(&clear, &before), [1, 2, 3], "no subject term in common");

    // Two statements alone are each other's nearest whatever they say (Chinese sentences sit
    // at cosine 0.85 and more): with no runner-up, neither is clearly the other's nearest, and
    // centered on their mean they point away from each other.
    let statements = Statements::read([
        (id(1), statement("我喜欢在周末去香山爬山", 1)),
        (id(2), statement("用户对花生过敏，点餐时要避开含花生的菜。", 2)),
    ]);
    let ranked = vec![scored(1, 0.6), scored(2, 0.58)];
    let raw = cosines(&[(1, 2, 0.86)]);
    let vectors = [(id(1), [0.8, 0.6]), (id(2), [0.6, 0.8])];
    let centered_vectors = centered(vectors.iter().map(|(id, v)| (*id, v.as_slice())), 2);
    let apart = |a: MemoryId, b: MemoryId| {
        let (a, b) = (&centered_vectors[&a], &centered_vectors[&b]);
        Some(a.iter().zip(b).map(|(x, y)| x * y).sum())
    };
    assert!(apart(id(1), id(2)).is_some_and(|c: f32| (c + 1.0).abs() < 1e-6));
    for config in [Succession::DEFAULT, before] {
        let (out, _) = newer_first(ranked.clone(), &statements, &raw, apart, 5, &config);
        assert_eq!(ids(&out), [1, 2], "户外运动 asks for the hike");
    }
    // Nor does a pair alone in its tier among others, however near: it needs a runner-up.
    let near = cosines(&[(1, 2, 0.4)]);
    assert_eq!(
        ids(&newer_first(ranked, &statements, &raw, &near, 5, &Succession::DEFAULT).0),
        [1, 2]
    );
}

#[test]
fn a_near_tie_needs_a_runner_up_of_the_tier_and_the_stated_changes_stay_on_raw_cosines() {
    let hybrid = "We went hybrid: office on Tuesdays and Thursdays only.";
    let pair = [
        (id(1), statement("I'm in the office five days a week.", 2)),
        (id(2), statement(hybrid, 9)),
        (id(3), Statement { memory_type: MemoryType::Semantic, ..statement("Tea, no sugar.", 5) }),
    ];
    let ranked = vec![scored(1, 0.9), scored(2, 0.8), scored(3, 0.7), scored(4, 0.6)];
    let raw = cosines(&[(1, 2, 0.9)]);
    let centered = cosines(&[(1, 2, 0.4), (1, 4, -0.5), (2, 4, -0.5), (3, 4, -0.5)]);
    let case = |statements: &Statements<'_>| {
        ids(&newer_first(ranked.clone(), statements, &raw, &centered, 5, &Succession::DEFAULT).0)
    };
    // The third is of another tier: each of the pair is the only one of its tier to the other.
    assert_eq!(case(&Statements::read(pair)), [1, 2, 3, 4], "no runner-up");
    let fourth = (id(4), statement("The lift is out of order again.", 6));
    let with_fourth = Statements::read(pair.into_iter().chain([fourth]));
    assert_eq!(case(&with_fourth), [2, 1, 3, 4], "the fourth, far, is the runner-up");

    // A stated change is read on the raw cosines, whatever the centered ones say: Berlin is
    // clearly Lisbon's nearest older statement raw, not centered.
    let statements = berlin_kids_lisbon(None);
    let ranked = vec![scored(1, 0.9), scored(2, 0.5), scored(3, 0.4)];
    let raw = near_pairs(&[(1, 3)]);
    let flat = |_, _| Some(0.1);
    let (out, lifted) = newer_first(ranked, &statements, &raw, flat, 5, &Succession::DEFAULT);
    assert_eq!((ids(&out), lifted), (vec![3, 1, 2], HashMap::from([(id(3), id(1))])));
}

#[test]
fn centered_vectors_take_out_what_all_of_them_share() {
    // Three vectors in a narrow cone around the first axis: 1 and 2 lean the same way off it.
    let unit = |v: [f32; 3]| {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.map(|x| x / n).to_vec()
    };
    let vectors = [
        (id(1), unit([1.0, 0.30, 0.05])),
        (id(2), unit([1.0, 0.25, 0.10])),
        (id(3), unit([1.0, -0.10, 0.30])),
    ];
    let of = |extra: Vec<(MemoryId, Vec<f32>)>| {
        let all: Vec<(MemoryId, Vec<f32>)> = vectors.iter().cloned().chain(extra).collect();
        centered(all.iter().map(|(id, v)| (*id, v.as_slice())), 3)
    };
    let out = of(vec![]);
    let cosine = |out: &HashMap<MemoryId, Vec<f32>>, a, b| -> f32 {
        out[&id(a)].iter().zip(&out[&id(b)]).map(|(x, y)| x * y).sum()
    };
    for v in out.values() {
        assert!((v.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5, "unit length");
    }
    assert!(cosine(&out, 1, 2) > 0.8, "1 and 2 lean the same way: {}", cosine(&out, 1, 2));
    assert!(cosine(&out, 1, 3) < -0.5 && cosine(&out, 2, 3) < -0.5, "3 leans the other way");
    // A vector of another length or with a value that is not finite is left out, and out of
    // the mean: the others come out as without it.
    let odd = of(vec![(id(4), vec![1.0, 0.0]), (id(5), vec![f32::NAN, 0.0, 0.0])]);
    assert_eq!(odd.len(), 3);
    assert!((cosine(&odd, 1, 2) - cosine(&out, 1, 2)).abs() < 1e-6);
    // One vector is its own mean: nothing to compare.
    assert!(of(vec![]).len() == 3 && centered([(id(1), [1.0f32, 0.0].as_slice())], 2).is_empty());
    assert!(centered([], 3).is_empty());
}

#[test]
fn a_newer_statement_placed_before_its_older_one_keeps_it_when_a_tie_lifts_it_further() {
    // 2 contradicts 3 by its words and takes its place, second; then it is the later of a near
    // tie with the first, which it does not read as changing.
    let statements = Statements::read([
        (id(1), statement("I watch horror movies with my sister.", 2)),
        (id(2), statement("I don't like horror movies.", 9)),
        (id(3), statement("I like horror movies.", 1)),
    ]);
    let ranked = vec![scored(1, 0.9), scored(3, 0.6), scored(2, 0.2)];
    let near = cosines(&[(1, 2, 0.95), (2, 3, 0.85)]);
    let (out, lifted) =
        newer_first(ranked.clone(), &statements, &near, &near, 5, &Succession::DEFAULT);
    assert_eq!(ids(&out), [2, 1, 3]);
    // A recall for one memory answers the same: the second is read as an older statement.
    let (one, _) = newer_first(ranked, &statements, &near, &near, 1, &Succession::DEFAULT);
    assert_eq!(ids(&one)[0], 2);
    assert_eq!(lifted, HashMap::from([(id(2), id(3))]), "the first older statement it replaced");
}
