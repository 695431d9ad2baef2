//! The close reading's tests: restatements, contradictions, changes, in both languages.

use super::changes::change_markers;
use super::scan::ValueKind;
use super::*;

#[test]
fn a_shared_subject_term_says_what_both_are_about() {
    let shared = |a: &str, b: &str| Reading::of(a).shares_a_subject_term(&Reading::of(b));
    assert!(shared("孩子每天下午四点半放学。", "这学期学校调了作息，五点才放学。"));
    assert!(shared("The free plan allows 3 projects.", "Free accounts get 5 projects."));
    // Whom they are about, or a side of an antonym pair, is not what.
    assert!(!shared("用户喜欢在周末去香山爬山", "用户对花生过敏，点餐时要避开含花生的菜。"));
    assert!(!shared("用户喜欢爬山", "我喜欢吃辣"));
    assert!(!shared("The user likes spicy food.", "The user lives in Toronto."));
    assert!(!shared("我喜欢在周末去香山爬山", "用户对花生过敏。"));
}

/// `(older, newer)` pairs that state different facts, each language.
const CONTRADICTIONS: &[(&str, &str)] = &[
    ("用户不喜欢深色主题", "用户喜欢深色主题"),
    ("用户喜欢深色主题", "用户不喜欢深色主题"),
    ("端口从 8765 改成 8766", "端口从 8766 改成 8765"),
    ("The user likes dark mode", "The user does not like dark mode"),
    ("The user doesn't like dark mode", "The user likes dark mode"),
    ("moved from Berlin to Paris", "moved from Paris to Berlin"),
    ("The user prefers light theme", "The user prefers dark theme"),
    ("用户喜欢吃香菜", "用户讨厌吃香菜"),
    ("编辑器开启了自动保存", "编辑器关闭了自动保存"),
    ("Auto-save is enabled in the editor", "Auto-save is disabled in the editor"),
    ("Increase the cache size", "Decrease the cache size"),
    ("我每天早起跑步", "我每天晚起跑步"),
    ("我每天早上跑步", "我每天晚上跑步"),
    ("The API server listens on port 8765", "The API server listens on port 8766"),
    ("I live in Berlin", "I live in Paris"),
    ("The user's e-mail is ana@example.com", "The user's e-mail is ana@example.org"),
    ("The docs are at https://a.example/v1", "The docs are at https://a.example/v2"),
    ("服务部署在 A 机房", "服务部署在 B 机房"),
    ("端口是 8765", "端口从 8765 改成 8766"),
    ("The user lives in Berlin", "The user moved from Berlin to Paris"),
    ("The user drinks coffee", "The user does not drink coffee"),
    ("数据库地址 10.0.0.5 → 10.0.0.6", "数据库地址 10.0.0.6 → 10.0.0.5"),
    ("changed the port from 8765 to 8766", "changed the port from 8766 to 8765"),
    ("把端口改成 8765", "把端口改成 8766"),
    ("每天三点起床", "每天五点起床"),
    ("The user does not like tea", "The user likes tea"),
];

/// Pairs that say the same thing or where the newer only adds a detail.
const COMPATIBLE: &[(&str, &str)] = &[
    ("服务端口是 8765", "我们的服务端口是 8765。"),
    ("User likes tea.", "The user likes tea"),
    ("端口 8765", "服务端口是 8765，部署在 A 机房"),
    ("端口 8766", "端口从 8765 改成 8766"),
    ("端口从 8765 改成 8766", "端口从8765改成了8766"),
    ("The user likes tea", "The user likes tea with milk"),
    ("I moved to Berlin", "I moved to Berlin in 2020"),
    ("用户不喜欢深色主题", "用户讨厌深色主题"),
    ("Auto-save is not enabled", "Auto-save is disabled"),
    ("The user doesn't like tea", "The user does not like tea"),
    ("用户喜欢猫", "用户养了一只狗"),
    ("我非常喜欢爬山", "我很喜欢爬山"),
];

#[test]
fn contradictions_are_found_in_both_languages() {
    for (older, newer) in CONTRADICTIONS {
        assert!(contradicts(older, newer), "{older:?} → {newer:?} should contradict");
    }
}

#[test]
fn restatements_and_added_details_are_not_contradictions() {
    for (older, newer) in COMPATIBLE {
        assert!(!contradicts(older, newer), "{older:?} → {newer:?} should not contradict");
    }
}

#[test]
fn contradicting_texts_never_pass_the_lossless_test() {
    for (older, newer) in CONTRADICTIONS {
        // "端口是 8765" adds nothing to its change; every other pair differs both ways.
        if *older == "端口是 8765" || *older == "The user lives in Berlin" {
            continue;
        }
        assert!(
            !adds_nothing(newer, older) && !adds_nothing(older, newer),
            "{older:?} / {newer:?} must not merge"
        );
    }
}

#[test]
fn paraphrases_still_pass_the_lossless_test() {
    assert!(adds_nothing("服务端口是 8765", "我们的服务端口是 8765。"));
    assert!(adds_nothing("User likes tea.", "The user likes tea"));
    assert!(adds_nothing("likes TEA", "The user likes tea."));
    assert!(adds_nothing("The user doesn't like tea", "The user does not like tea"));
    assert!(adds_nothing("端口 8766", "端口从 8765 改成 8766"));
    assert!(adds_nothing("我们不用 Java", "我们不用 Java，服务端口是 8765"));
    assert!(adds_nothing("服务端口是 8765", "我们不用 Java。服务端口是 8765"));
    assert!(!adds_nothing("服务端口是 8766", "服务端口是 8765"));
    assert!(!adds_nothing("I live in Beijing", "I live in Shanghai"));
    assert!(!adds_nothing("version 2.5", "version 5.2"), "whole values, not digit runs");
    assert!(!adds_nothing("ana@example.com", "example.com ana"));
}

#[test]
fn words_that_only_look_negative_negate_nothing() {
    // `非常` is "very", `未来` "future", `别人` "other people".
    assert!(adds_nothing("我喜欢爬山", "我非常喜欢爬山"));
    assert!(adds_nothing("未来计划", "我们的未来计划"));
    assert!(adds_nothing("别人的车", "这是别人的车"));
}

/// `(older, newer, the least evidence expected)`: updates, each language.
const UPDATES: &[(&str, &str, Update)] = &[
    ("I live in Berlin.", "I moved to Lisbon last month.", Update::Stated),
    ("我住在北京海淀区。", "我上个月搬到上海了，住在徐汇。", Update::Stated),
    ("The API server listens on port 8080.", "We switched the API to port 9090.", Update::OnTopic),
    ("API 服务监听 8080 端口。", "API 服务的端口改成了 9090。", Update::OnTopic),
    ("I drink a lot of coffee.", "I quit coffee completely.", Update::OnTopic),
    ("用户每天早上都要喝一杯咖啡。", "用户已经戒掉咖啡了，改喝绿茶。", Update::OnTopic),
    // A name (`Spanish`) is no subject term: in a conversation everyone's name recurs.
    ("I'm learning Spanish.", "I gave up on Spanish and started on Japanese.", Update::Stated),
    ("My phone number is +1 415 555 0134.", "New phone number: +1 415 555 0199.", Update::OnTopic),
    ("我的直属领导是王芳。", "我的新领导是李强。", Update::OnTopic),
    ("The team uses Jenkins for CI.", "We migrated CI from Jenkins to GitHub.", Update::OnTopic),
    ("The user likes spicy food.", "The user no longer eats spicy food.", Update::Contradiction),
    ("我喜欢看恐怖片。", "最近我特别讨厌恐怖片。", Update::Contradiction),
    // `instead of Y` where the older text says Y; `started`, `wait until`, `关闭`, `等到`.
    (
        "We host the website on Netlify.",
        "The website is served from Vercel instead of Netlify.",
        Update::OnTopic,
    ),
    (
        "I teach maths at Lincoln High.",
        "Started teaching maths at Roosevelt High this month.",
        Update::OnTopic,
    ),
    (
        "The budget review is due by Friday.",
        "The budget review can wait until next Tuesday.",
        Update::OnTopic,
    ),
    ("防火墙对外开放 22 端口。", "防火墙的 22 端口已关闭。", Update::OnTopic),
    ("项目评审要在周三前完成。", "项目评审可以等到下周五再做。", Update::OnTopic),
    (
        "The user wants build e-mails.",
        "The user does not want build e-mails.",
        Update::Contradiction,
    ),
    // Only marked (`started`, `开始`, `入职`), nothing shared: the vectors must say more.
    ("I'm vegetarian.", "I started eating meat again last year.", Update::Marked),
    ("我吃素。", "我去年开始又吃肉了。", Update::Marked),
    ("我是自由职业的插画师。", "我入职了网易，全职做游戏美术。", Update::Marked),
];

/// `(older, newer)`: a detail, a restatement, or another fact, some with a word that only
/// looks like a change (`new licence`, `刷新`, `instead of` something else, `left-handed`).
const NOT_UPDATES: &[(&str, &str)] = &[
    ("I live in Berlin.", "Berlin winters are long and grey."),
    ("I moved to Berlin.", "I moved to Berlin in 2020."),
    ("端口 8766", "端口从 8765 改成 8766"),
    ("The office has a quiet room on the third floor.", "The office is closed on holidays."),
    ("SDK 遵循语义化版本。", "引入新的开源协议需要法务审批。"),
    ("每晚两点自动备份数据库。", "数据看板每小时刷新一次。"),
    ("I have two kids, aged 7 and 10.", "I buy oat milk instead of cow's milk."),
    ("We deploy with Heroku.", "I drink tea instead of coffee."),
    ("The bus to the office takes an hour.", "I take the train instead of the car."),
    ("每周五下午做设计评审。", "运营周报每周一上午发出。"),
    ("Our flat is on the fourth floor without an elevator.", "I rent a flat in Brooklyn."),
    ("I write with a fountain pen.", "I'm left-handed."),
    ("I live in Berlin.", "I'm going to move from Berlin to Lisbon next year."),
    ("我住在北京。", "我打算明年搬到上海。"),
    // `开始` counts only as a change marked, never on a shared subject.
    ("周一例会 10 点开始。", "周三例会 9 点开始。"),
    ("我会弹钢琴。", "我从小就开始学钢琴。"),
];

#[test]
fn updates_are_read_in_both_languages() {
    for (older, newer, least) in UPDATES {
        let got = update_evidence(older, newer);
        assert!(got >= *least, "{older:?} → {newer:?}: {got:?}, expected at least {least:?}");
    }
}

#[test]
fn a_change_only_marked_is_weaker_than_a_stated_one() {
    let marked = update_evidence("I'm vegetarian.", "I started eating meat again last year.");
    assert_eq!(marked, Update::Marked);
    assert_eq!(update_evidence("我吃素。", "我去年开始又吃肉了。"), Update::Marked);
    assert_eq!(update_evidence("我吃素。", "我去年又吃肉了。"), Update::None, "no marker");
    assert_eq!(update_evidence("我住在天津。", "一开始我不太习惯。"), Update::None, "at first");
    assert!(Update::Marked < Update::Stated, "the write-time rule asks Stated at least");
}

#[test]
fn details_restatements_and_other_facts_are_not_updates() {
    for (older, newer) in NOT_UPDATES {
        // `Differs` at most: a different value without a word of change.
        let got = update_evidence(older, newer);
        assert!(got <= Update::Differs, "{older:?} → {newer:?}: {got:?}");
    }
    // Same topic, different value, no word of change: also what facts about different
    // things look like, so it only counts between near duplicates.
    let birthday =
        update_evidence("My birthday is on October 3rd.", "My mother's birthday is in June.");
    assert_eq!(birthday, Update::Differs);
    assert_eq!(update_evidence("port 8765", "port 8766"), Update::Differs);
}

#[test]
fn markers_of_change_read_words_not_letters() {
    assert!(change_markers("I moved to Paris").strong);
    assert!(!change_markers("I'm left-handed.").strong);
    assert!(change_markers("I left Singapore.").strong);
    assert!(change_markers("My advisor wants it by Monday instead.").strong);
    assert!(!change_markers("I buy oat milk instead of cow's milk.").strong);
    assert!(!change_markers("我今天跑步了，现在很累。").weak, "了 and 现在 mark nothing alone");
    assert!(change_markers("I'm on Pacific time these days.").weak);
    assert!(change_markers("房东换号码了").strong);
    assert!(!change_markers("今年要去换驾照。").strong, "a plan is not a change yet");
    assert!(!change_markers("I'm going to move to Paris.").strong);
    assert!(!change_markers("值班每周一轮换。").strong, "轮换 is rotation");
    assert!(change_markers("80 端口已关闭").strong);
    assert!(!change_markers("80 端口没有关闭").strong, "not closed is no change");
    assert!(change_markers("Standup is at 9:45 starting this week.").strong);
    assert!(change_markers("以后请发到我的新邮箱").new_heads.contains(&"邮箱".to_owned()));
    assert!(change_markers("数据看板每小时刷新一次").new_heads.is_empty(), "刷新 is refresh");
    assert!(change_markers("我们搬去了新加坡").new_heads.is_empty(), "新加坡 is Singapore");
    assert_eq!(change_markers("New phone number: 0199").new_heads, ["phone"]);
}

#[test]
fn facts_are_read_into_their_kinds() {
    let f = Facts::of(
        "Ana moved from Berlin to Paris on 2023-05-08; mail ana@x.io, see https://x.io/a.",
    );
    assert_eq!(f.changes.iter().next().unwrap(), &(vec!["berlin".into()], vec!["paris".into()]));
    assert!(f.values[&ValueKind::Number].contains("2023-05-08"));
    assert!(f.values[&ValueKind::Email].contains("ana@x.io"));
    assert!(f.values[&ValueKind::Url].contains("https://x.io/a"));
    assert!(!f.values[&ValueKind::Name].contains("ana"), "a sentence's first word is no name");
    assert!(Facts::of("Lisa从爷爷奶奶那里收到银色的项链").changes.is_empty(), "收到 is no change");
    let zh = Facts::of("用户不太喜欢 Vim，从 8765 改成了 8766");
    assert!(zh.poles.contains(&(0, false)), "不太喜欢 is the dislike side");
    assert!(zh.values[&ValueKind::Name].contains("vim"), "Latin inside Chinese is a name");
    assert!(zh.changes.contains(&(vec!["8765".into()], vec!["8766".into()])));
}
