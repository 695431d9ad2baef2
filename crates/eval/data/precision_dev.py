#!/usr/bin/env python3
"""Precision dev set generator (stdlib only, deterministic).

Writes precision_dev.jsonl next to this script: ~150 small namespaces
(pd-001 ...) of unrelated memories, each with 2-4 questions that name one
memory plainly (keyword / paraphrase / cross-language) or ask about a subject
absent from the namespace (gold []).

Data pools are at the bottom of this file. Pool line format:
    tags|key|memory text|keyword question|paraphrase question|cross-language question
  * tags: comma-separated subject tags; a leading "!" marks a memory that states
    a change (switched X to Y, moved, no longer ...). Two memories sharing a tag
    never meet in one namespace; an absent question is only used where no memory
    carries one of its tags.
  * key: the distinctive word; it must occur in the memory and in its keyword
    question, must NOT occur in the paraphrase question, and a keyword question
    is only asked where no other memory of the namespace contains the key.
Absent line format:
    lang|tags|keys(;-separated)|question
  keys must not occur in any memory of the namespace ("@tech" = all technical tags).

Run:  python3 precision_dev.py
"""
import json
import random
import re
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

SEED = 20250611
N_NS = 150
OUT = Path(__file__).resolve().parent / "precision_dev.jsonl"

TECH_TAGS = sorted("""port db cache editor proglang ci deploy cloud backup storage git test
monitor os container deps style api auth dns framework queue cron process license docs
vpn log payment infra proxy release gpu ml analytics account password browser typing
shell config repo oncall url cert chattool""".split())

CJK = re.compile(r"[\u3400-\u9fff]")

# Memory-question category mix, per memory language (fractions of that language's
# memory questions). Absent questions are planned separately (~30 % of all).
MEM_CATS = {
    "zh": {"keyword-zh": 0.54, "paraphrase-zh": 0.26, "cross-zh-en": 0.20},
    "en": {"keyword-en": 0.54, "paraphrase-en": 0.26, "cross-en-zh": 0.20},
}
CAT_FIELD = {"keyword": "kw", "paraphrase": "para", "cross": "cross"}
ALL_CATS = ["keyword-zh", "keyword-en", "paraphrase-zh", "paraphrase-en",
            "cross-zh-en", "cross-en-zh", "absent-zh", "absent-en"]


def has_key(text, key, loose=False):
    """Word-bounded, case-insensitive match for ASCII keys; substring for CJK keys.

    loose=True (used for the "must not occur elsewhere" checks) also matches a
    word that merely starts with the key ("train" in "training")."""
    if key.isascii():
        pat = r"(?<![A-Za-z0-9])" + re.escape(key) + ("" if loose else r"(?![A-Za-z0-9])")
        return re.search(pat, text, re.I) is not None
    return key.lower() in text.lower()


def parse_pool(raw, lang):
    mems = []
    for i, line in enumerate(l for l in raw.strip().splitlines() if l.strip()):
        parts = [p.strip() for p in line.split("|")]
        assert len(parts) == 6, line
        tags, key, text, kw, para, cross = parts
        change = tags.startswith("!")
        tags = tuple(sorted({t for t in tags.lstrip("!").split(",") if t}))
        m = {"uid": f"{lang}{i + 1:03d}", "lang": lang, "tags": tags, "change": change,
             "key": key, "text": text, "kw": kw, "para": para or None, "cross": cross or None}
        assert tags, line
        assert has_key(text, key), ("key not in text", line)
        assert has_key(kw, key), ("key not in keyword question", line)
        assert m["para"] is None or not has_key(para, key, True), ("key in paraphrase", line)
        if lang == "zh":
            assert CJK.search(text) and 8 <= len(text) <= 60, ("zh length", line)
            assert m["para"] is None or CJK.search(para), line
            assert m["cross"] is None or not CJK.search(cross), line
        else:
            assert not CJK.search(text + kw + (para or "")), line
            assert 6 <= len(text.split()) <= 40, ("en length", line)
            assert m["cross"] is None or CJK.search(cross), line
        mems.append(m)
    texts = [m["text"] for m in mems]
    assert len(texts) == len(set(texts)), "duplicate memory text"
    return mems


def parse_absent(raw):
    out = {"zh": [], "en": []}
    for i, line in enumerate(l for l in raw.strip().splitlines() if l.strip()):
        lang, tags, keys, q = [p.strip() for p in line.split("|")]
        tagset = set()
        for t in tags.split(","):
            if t == "@tech":
                tagset.update(TECH_TAGS)
            elif t:
                tagset.add(t)
        a = {"aid": f"a{i + 1:03d}", "lang": lang, "tags": tuple(sorted(tagset)),
             "keys": tuple(k for k in keys.split(";") if k), "text": q}
        assert (lang == "zh") == bool(CJK.search(q)), line
        out[lang].append(a)
    return out


def fmt(ts):
    return ts.strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    rng = random.Random(SEED)
    pools = {"zh": parse_pool(ZH_POOL, "zh"), "en": parse_pool(EN_POOL, "en")}
    absents = parse_absent(ABSENT_POOL)
    use = Counter()          # memory uid -> namespaces using it
    asked = Counter()        # (uid, category) -> times asked
    asked_mem = Counter()    # uid -> times asked
    absent_use = Counter()

    # ---------------- namespace plan ----------------
    buckets = [(1, 2)] * 38 + [(3, 4)] * 37 + [(5, 7)] * 38 + [(8, 10)] * 37
    rng.shuffle(buckets)
    sizes = [rng.randint(lo, hi) for lo, hi in buckets]
    modes = ["zh"] * 65 + ["en"] * 65 + ["mix"] * 20
    rng.shuffle(modes)
    has_change = [True] * 75 + [False] * 75
    rng.shuffle(has_change)

    namespaces = []
    for n in range(N_NS):
        size, mode = sizes[n], modes[n]
        if mode == "mix":
            if size == 1:
                langs = [rng.choice(["zh", "en"])]
            else:
                nz = rng.randint(max(1, size // 2 - 1), min(size - 1, (size + 1) // 2 + 1))
                langs = ["zh"] * nz + ["en"] * (size - nz)
        else:
            other = "en" if mode == "zh" else "zh"
            langs = [mode] * size
            if size >= 6 and rng.random() < 0.3:
                langs[-1] = other
        rng.shuffle(langs)
        n_change = 0
        if has_change[n]:
            n_change = 1 if size <= 3 else rng.choice([1, 1, 2])
        slots = [(lang, i < n_change) for i, lang in enumerate(langs)]
        chosen, used_tags = [], set()
        for lang, want_change in slots:
            cands = [m for m in pools[lang]
                     if m["change"] == want_change and use[m["uid"]] < 2
                     and not (set(m["tags"]) & used_tags)
                     and m["uid"] not in {c["uid"] for c in chosen}]
            assert cands, f"no candidate for ns {n + 1}"
            keyed = [(use[m["uid"]], rng.random(), m["uid"], m) for m in cands]
            keyed.sort(key=lambda x: x[:3])
            m = keyed[0][3]
            chosen.append(m)
            used_tags.update(m["tags"])
            use[m["uid"]] += 1
        rng.shuffle(chosen)
        # timestamps
        gaps = [rng.randint(3, 60 * 24 * 40) for _ in range(size - 1)]
        base = datetime(2024, 1, 1, tzinfo=timezone.utc)
        end = datetime(2025, 12, 31, 23, 59, tzinfo=timezone.utc)
        room = int((end - base).total_seconds() // 60) - sum(gaps)
        t = base + timedelta(minutes=rng.randint(0, room))
        stamps = [t]
        for g in gaps:
            t = t + timedelta(minutes=g)
            stamps.append(t)
        as_of = stamps[-1] + timedelta(days=rng.randint(2, 6), hours=rng.randint(0, 23),
                                       minutes=rng.choice([0, 15, 30, 45]))
        as_of = as_of.replace(second=0)
        # question plan
        if size <= 2:
            n_q = 2
        elif size <= 4:
            n_q = rng.choice([2, 3, 3])
        elif size <= 7:
            n_q = rng.choice([3, 4, 4])
        else:
            n_q = 4
        r = rng.random()
        n_abs = 1
        if r < 0.22 and size >= 2:
            n_abs = 0
        elif r < 0.28 and n_q >= 3:
            n_abs = 2
        n_mem = n_q - n_abs
        assert 1 <= n_q <= 4 and 0 <= n_mem <= size
        namespaces.append({"name": f"pd-{n + 1:03d}", "mode": mode, "mems": chosen,
                           "stamps": stamps, "as_of": as_of, "n_mem": n_mem, "n_abs": n_abs})

    # ---------------- questions ----------------
    cat_count = Counter()
    lang_q = Counter()
    out_lines = []
    for ns in namespaces:
        rng = random.Random(f"{SEED}:{ns['name']}")  # per-namespace stream for questions
        mems = ns["mems"]
        ids = {m["uid"]: f"m{i + 1}" for i, m in enumerate(mems)}
        ns_tags = set(t for m in mems for t in m["tags"])
        texts = [m["text"] for m in mems]
        questions = []
        # memory questions: pick distinct memories, least asked first
        order = sorted(mems, key=lambda m: (asked_mem[m["uid"]], rng.random(), m["uid"]))
        for m in order[:ns["n_mem"]]:
            lang = m["lang"]
            allowed = []
            for cat, frac in MEM_CATS[lang].items():
                field = CAT_FIELD[cat.split("-")[0]]
                if m[field] is None:
                    continue
                if field == "kw" and any(has_key(o["text"], m["key"], True) for o in mems if o is not m):
                    continue
                deficit = frac * (lang_q[lang] + 1) - cat_count[cat]
                score = deficit - 0.6 * asked[(m["uid"], cat)] + 0.05 * rng.random()
                allowed.append((score, cat, field))
            assert allowed, m
            allowed.sort(key=lambda x: (-x[0], x[1]))
            _, cat, field = allowed[0]
            cat_count[cat] += 1
            lang_q[lang] += 1
            asked[(m["uid"], cat)] += 1
            asked_mem[m["uid"]] += 1
            questions.append({"text": m[field], "gold": [ids[m["uid"]]], "category": cat,
                              "src": m["uid"]})
        # absent questions
        used_abs = set()
        for _ in range(ns["n_abs"]):
            if ns["mode"] == "mix":
                first = min(["zh", "en"], key=lambda l: (cat_count["absent-" + l], rng.random()))
            else:
                other = "en" if ns["mode"] == "zh" else "zh"
                first = ns["mode"] if rng.random() < 0.85 else other
            pick = None
            for lang in (first, "en" if first == "zh" else "zh"):
                elig = [a for a in absents[lang]
                        if a["aid"] not in used_abs
                        and not (set(a["tags"]) & ns_tags)
                        and not any(has_key(t, k, True) for t in texts for k in a["keys"])]
                if elig:
                    keyed = sorted(((absent_use[a["aid"]], rng.random(), a["aid"], a) for a in elig),
                                   key=lambda x: x[:3])
                    pick = keyed[0][3]
                    break
            assert pick is not None, ns["name"]
            used_abs.add(pick["aid"])
            absent_use[pick["aid"]] += 1
            cat = "absent-" + pick["lang"]
            cat_count[cat] += 1
            questions.append({"text": pick["text"], "gold": [], "category": cat, "src": pick["aid"]})
        rng.shuffle(questions)
        ns["questions"] = questions
        # emit
        for m, ts in zip(mems, ns["stamps"]):
            out_lines.append({"type": "memory", "namespace": ns["name"], "id": ids[m["uid"]],
                              "text": m["text"], "timestamp": fmt(ts)})
        for qi, q in enumerate(questions):
            out_lines.append({"type": "question", "namespace": ns["name"],
                              "id": f"{ns['name']}-q{qi + 1}", "text": q["text"],
                              "as_of": fmt(ns["as_of"]), "gold": q["gold"],
                              "category": q["category"]})

    # ---------------- sanity checks ----------------
    last_ts = {}
    seen_ids = defaultdict(set)
    for o in out_lines:
        if o["type"] == "memory":
            assert o["id"] not in seen_ids[o["namespace"]]
            seen_ids[o["namespace"]].add(o["id"])
            assert "2024-01-01" <= o["timestamp"] <= "2025-12-31T23:59:59Z"
            assert o["timestamp"] > last_ts.get(o["namespace"], "")
            last_ts[o["namespace"]] = o["timestamp"]
        else:
            assert o["as_of"] > last_ts[o["namespace"]]
            assert all(g in seen_ids[o["namespace"]] for g in o["gold"])
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        for o in out_lines:
            f.write(json.dumps(o, ensure_ascii=False) + "\n")

    # ---------------- report ----------------
    print(f"wrote {OUT} ({len(out_lines)} lines)")
    size_c = Counter(len(ns["mems"]) for ns in namespaces)
    print("namespaces:", len(namespaces), "by size:", dict(sorted(size_c.items())))
    bc = Counter("1-2" if s <= 2 else "3-4" if s <= 4 else "5-7" if s <= 7 else "8-10"
                 for s in (len(ns["mems"]) for ns in namespaces))
    print("  by size bucket:", dict(sorted(bc.items())))
    print("  by language mode:", dict(sorted(Counter(ns["mode"] for ns in namespaces).items())))
    n_chg_ns = sum(1 for ns in namespaces if any(m["change"] for m in ns["mems"]))
    print("  namespaces with change-stating memories:", n_chg_ns)
    slots = Counter(m["lang"] for ns in namespaces for m in ns["mems"])
    distinct = {l: len({m["uid"] for ns in namespaces for m in ns["mems"] if m["lang"] == l})
                for l in ("zh", "en")}
    print("memories (slots) by language:", dict(sorted(slots.items())),
          " distinct used:", distinct,
          " pool sizes:", {l: len(p) for l, p in pools.items()})
    print("  memory reuse (namespaces per memory):",
          dict(sorted(Counter(use[m["uid"]] for l in pools for m in pools[l]).items())))
    qc = Counter(q["category"] for ns in namespaces for q in ns["questions"])
    total = sum(qc.values())
    print("questions:", total)
    for c in ALL_CATS:
        print(f"  {c:15s} {qc[c]:4d}  {100 * qc[c] / total:5.1f}%")
    for fam in ("keyword", "paraphrase", "cross", "absent"):
        s = sum(v for k, v in qc.items() if k.startswith(fam))
        print(f"  [{fam}] {s} ({100 * s / total:.1f}%)")
    print("  absent questions in 1-memory namespaces:",
          sum(1 for ns in namespaces if len(ns["mems"]) == 1
              for q in ns["questions"] if not q["gold"]))
    print("  distinct absent questions used:", len(absent_use))


# ----------------------------------------------------------------------
# Data pools
# ----------------------------------------------------------------------

ZH_POOL = r"""
sport,outdoor|爬山|我喜欢在周末去香山爬山，呼吸新鲜空气。|爬山|我周末一般做什么户外活动？|What outdoor activity do I usually do on weekends?
sport|游泳|用户每周二和周四晚上去小区的游泳馆游泳，每次游一千五百米左右，游完会在旁边的桑拿房坐十分钟。|游泳|用户工作日晚上通常做什么锻炼？|Which days of the week does the user go swimming?
sport,morning|瑜伽|用户每天早上起床后会做二十分钟瑜伽。|瑜伽|用户早晨起床后有什么固定的锻炼习惯？|How long is the user's morning yoga session?
sport|羽毛球|我和同事每周五下班后打羽毛球。|羽毛球|我周五下班后和同事一起做什么运动？|What sport do I play with coworkers on Fridays?
sport|马拉松|用户正在为十月份的半程马拉松做训练，每周跑四次，周末会安排一次十五公里以上的长距离。|半程马拉松|用户在为哪场长跑比赛做准备？|What race is the user training for?
!sport|健身房|我退掉了健身房的年卡，改成在家跟着视频锻炼。|健身房|我现在在哪里锻炼身体？|Where do I work out now?
sport,outdoor|滑雪|用户每年冬天都会去崇礼滑雪。|滑雪|用户冬天有什么固定的雪上运动？|Where does the user go skiing every winter?
sport,child|篮球|我儿子在学校篮球队打控球后卫。|篮球队|我儿子在校队里打什么位置？|What position does my son play on the school team?
sport,outdoor,bike|骑行|周日早上我通常沿着运河骑行三十公里。|骑行多远？|我星期天早上一般做什么有氧运动？|How far do I cycle on Sunday mornings?
sport,health|跑步|医生建议用户暂停跑步，因为膝盖有旧伤。|跑步|医生为什么让用户暂停某项锻炼？|Why did the doctor tell the user to stop running?
music|吉他|我最近在自学吉他，每天练半小时。|吉他|我最近在自学什么乐器？|What instrument am I teaching myself?
music,child|钢琴|用户的女儿每周六上午去上钢琴课。|钢琴课|用户的女儿周六上午要去学什么？|What lesson does the user's daughter have on Saturday mornings?
music|周杰伦|用户最喜欢的歌手是周杰伦。|周杰伦|用户最爱听谁的歌？|Who is the user's favorite singer?
music|古典音乐|我写代码的时候喜欢听古典音乐。|古典音乐|我编程时一般听什么类型的曲子？|What do I listen to while coding?
music,travel|演唱会|下个月我要去上海看五月天的演唱会。|演唱会|我下个月要去看哪个乐队的现场表演？|Which band's concert am I going to next month?
food|川菜|用户喜欢吃辣，尤其是川菜，水煮鱼和麻婆豆腐是每次聚餐必点的菜。|川菜|用户口味重不重，偏爱哪个菜系？|Does the user like spicy food?
food|拉面|今天午饭在公司附近吃了一碗拉面。|拉面|我今天中午吃了什么？|What did I have for lunch today?
food,health|花生|用户对花生过敏。|花生|用户不能碰哪种坚果？|What is the user allergic to?
!food|吃素|我从今年开始吃素，不吃肉和鱼。|吃素|我现在的饮食有什么限制？|Do I still eat meat?
food|香菜|用户不吃香菜，点外卖时要备注。|香菜|用户不能接受哪种调味蔬菜？|Which herb does the user refuse to eat?
food,parent|饺子|我妈妈包的韭菜饺子是我最爱吃的。|饺子|我最爱吃妈妈做的哪种面食？|What is my favorite dish that my mom makes?
food,company|火锅|周五晚上团队聚餐定在海底捞吃火锅。|火锅|周五晚上大家一起去哪家店吃饭？|Where is the team dinner on Friday night?
food,morning|早餐|用户早餐通常只吃一个鸡蛋和一片全麦面包，有时候再加一杯无糖豆浆。|用户早餐吃什么？|用户早上起来一般吃点什么？|What does the user usually eat in the morning?
food,health|甜食|我在控制糖分，尽量不吃甜食，蛋糕和冰淇淋都已经戒了快三个月。|甜食|我在饮食上刻意少吃什么？|What am I avoiding to cut down on sugar?
!drink|喝茶|我不再喝咖啡了，改喝茶。|喝茶|我现在每天喝什么饮品？|Do I still drink coffee?
drink,morning|拿铁|用户每天上午要喝一杯燕麦拿铁，一般在公司楼下的咖啡店买，不加糖。|燕麦拿铁|用户每天上午的固定饮品是什么？|What does the user drink every morning?
drink|喝酒|用户不喝酒，聚会时只点果汁。|用户喝酒吗？|用户在社交场合碰含酒精的饮料吗？|Does the user drink alcohol?
drink,collect|普洱|我收藏了几饼云南普洱茶。|普洱|我收藏了什么发酵茶？|What kind of tea do I collect?
pet|年糕|用户养了一只橘猫，名字叫“年糕”，是三年前从小区楼下捡回来的，现在胖得像个球。|年糕|用户的宠物叫什么名字？|What is the name of the user's cat?
pet,outdoor|狗|我每天晚上七点带狗去小区楼下散步，大概半小时，下雨天就改成在楼道里陪它玩球。|带狗散步|我每天晚上几点要带宠物出门？|When do I walk my dog?
pet|鱼缸|用户家里有一个养热带鱼的鱼缸，每周换一次水。|鱼缸|用户家里的观赏鱼多久换一次水？|How often does the user change the aquarium water?
pet,health|疫苗|用户的猫下周三要去宠物医院打疫苗。|打疫苗|用户的宠物什么时候要去看兽医？|When is the cat's vaccination appointment?
child|幼儿园|用户的儿子今年九月上幼儿园。|幼儿园|用户的孩子什么时候开始入园？|When does the user's son start kindergarten?
child,art|女儿|我女儿今年七岁，喜欢画画。|女儿几岁了？|我家孩子多大了？|How old is my daughter?
parent,travel|成都|用户的父母住在成都，每年春节都会回去陪他们过年，一般待上一周左右，初七前后回来。|成都|用户过年一般回哪里探望爸妈？|Where do the user's parents live?
parent,health|白内障|我爸爸下个月做白内障手术。|白内障|我父亲下个月要做什么眼科手术？|What surgery is my father having next month?
spouse,job|数学老师|我老婆是一名小学数学老师，今年带两个五年级的班，晚上经常要批改作业到很晚。|数学老师|我妻子是做什么工作的？|What does my wife do for work?
spouse|结婚纪念日|用户的结婚纪念日是五月二十日。|结婚纪念日|用户和伴侣是哪天成婚的？|When is the user's wedding anniversary?
sibling,job|弟弟|我弟弟在深圳做硬件工程师。|我弟弟做什么工作？|我的兄弟在哪座城市上班，干哪一行？|What does my younger brother do?
sibling,event,travel|婚礼|用户的姐姐下个月结婚，婚礼在杭州西湖边的一家酒店举办，用户要当伴娘，需要提前两天过去帮忙布置。|婚礼|用户姐姐的喜事在哪里办？|Where is the user's sister's wedding?
friend,home|老王|我的大学室友老王下周来北京出差，约了周六见面，顺便叫上另外两个老同学一起聚聚。|老王|我的老同学下周来找我，约在哪天见面？|When am I meeting my college roommate?
birthday|生日|用户的生日是十一月三日。|生日|用户是哪天出生的？|When is the user's birthday?
birthday,spouse,clothes|礼物|我打算送老婆一条围巾作为生日礼物。|生日礼物|我准备给妻子过生日买什么？|What am I planning to give my wife for her birthday?
!home|海淀|用户上个月从朝阳区搬到了海淀区，新家在一个老小区的六楼，没有电梯，但周围很安静。|海淀|用户现在住在北京哪个区？|Which district did the user move to?
home,money|房租|我每月房租是四千五，每月五号交，房东只接受银行转账。|房租|我每个月住房开销多少、哪天付？|How much is my monthly rent?
garden,home|阳台|用户在阳台上种了番茄和辣椒。|阳台|用户在家里种了什么蔬菜？|What vegetables is the user growing?
home|空调|家里的空调设定在二十六度。|空调|家里冷气一般开到几度？|What temperature is the AC set to at home?
home|装修|我们家厨房下个月开始装修。|装修|家里哪个房间下个月要翻新？|Which room is being renovated next month?
job|产品经理|用户是一家教育科技公司的产品经理，主要负责中小学在线作业平台，团队里有十几个工程师。|产品经理|用户从事什么职业？|What is the user's job?
!job|跳槽|我上个月跳槽去了一家做自动驾驶的公司。|跳槽|我最近换了一份什么行业的工作？|What kind of company did I join last month?
job,schedule|加班|用户最近项目紧，每天加班到晚上十点，周末也经常被叫回公司处理线上问题。|加班|用户最近每天工作到几点？|How late has the user been working recently?
job,vacation|年假|我打算把剩下的五天年假用在十二月。|年假|我剩余的带薪假期打算什么时候休？|When do I plan to use my remaining annual leave?
travel|樱花|用户计划明年四月去日本看樱花，打算先到京都住三晚，再去大阪，预算大概两万元。|樱花|用户明年春天打算去哪个国家旅行？|Where is the user traveling next April?
travel|护照|我的护照明年三月到期，需要提前续签。|护照|我的出国证件什么时候过期？|When does my passport expire?
travel,transport|云南|国庆假期我们一家打算自驾去云南，路线是昆明、大理、丽江，全程大约十天。|云南|我们家国庆准备开车去哪里玩？|Where is my family driving for the National Day holiday?
travel|机票|用户订了下周一早上八点飞广州的机票。|机票|用户下周一几点的航班？去哪？|What time is the user's flight on Monday?
!travel|亚朵|出差的酒店从全季换成了亚朵，因为亚朵离客户公司更近，走路只要五分钟，早上开会不用再打车了。|亚朵|这次出差住哪家连锁宾馆？|Which hotel chain are we staying at for the business trip?
transport,commute|地铁|我每天坐地铁10号线上班，单程四十分钟，早高峰特别挤，所以一般七点半就出门。|地铁|我每天怎么去公司，路上多久？|How do I get to work every day?
!transport,car|电动车|用户把燃油车卖了，换了一辆电动车。|电动车|用户现在开什么类型的汽车？|What kind of car does the user drive now?
transport,study,car|科目二|我正在驾校学车，下个月考科目二。|科目二|我学开车学到哪个阶段了？|When is my next driving test?
transport,car|停车位|用户在公司地下车库租了一个停车位，编号B2-115。|停车位编号|用户的车停在哪？|What is the user's parking spot number?
book|三体|我最近在重读《三体》，已经看到第二部，这次注意到了很多第一次读时忽略的细节。|三体|我最近在读哪部科幻小说？|Which sci-fi novel am I rereading?
book,sleep,device|Kindle|用户习惯睡前用Kindle看半小时书。|Kindle|用户睡觉前通常用什么设备阅读？|What does the user do before bed?
book|读书会|我每月最后一个周六参加社区读书会。|读书会|我每个月最后一个周六参加什么活动？|What do I attend on the last Saturday of each month?
book|明朝|用户喜欢读历史类的书，尤其是明朝史。|明朝|用户对哪个朝代的往事最感兴趣？|What kind of books does the user enjoy?
film|宫崎骏|用户最喜欢宫崎骏的动画电影。|宫崎骏|用户最爱哪位日本动画导演的作品？|Which animation director does the user love?
film|绝命毒师|我最近在追一部美剧《绝命毒师》。|绝命毒师|我最近在追什么剧？|What TV show am I watching these days?
film|电影院|我们每个月第一个周日会去电影院看一场电影。|电影院|我们每月第一个周日的固定娱乐是什么？|What do we do on the first Sunday of each month?
game|塞尔达|我周末在玩《塞尔达传说》，快通关了。|塞尔达|我周末在玩什么游戏？|What video game am I playing on weekends?
game|围棋|用户小时候学过围棋，业余三段。|围棋|用户在哪种棋类上有段位？|What is the user's Go rank?
game,friend|桌游|我们几个朋友每两周聚一次玩桌游。|桌游|我和朋友们每两周聚在一起做什么？|How often do I play board games with friends?
lang,study|日语|用户在学日语，目标是明年考N2，每周六下午在语言学校上三个小时的课。|日语|用户在准备哪门外语考试？|Which language is the user studying?
lang|英语单词|我每天早上用App背三十个英语单词。|英语单词|我每天早上在手机上学什么？|How many English words do I memorize each morning?
lang,child|西班牙语|用户的孩子在学校选修了西班牙语。|西班牙语|用户的孩子在学校选了哪门外语课？|What elective language does the user's child take?
cook,food|烤面包|我最近迷上了自己烤面包，每周末烤一次。|烤面包|我最近在家烘焙什么？|What have I been baking lately?
cook,food,purchase|空气炸锅|用户上周买了一个空气炸锅，常用来做鸡翅。|空气炸锅|用户上周新添了什么厨房电器？|What kitchen appliance did the user buy last week?
cook,food|红烧肉|我做的红烧肉是家里人最爱吃的菜。|红烧肉|我的拿手菜是什么？|What is my signature dish?
garden,office|多肉|用户办公桌上摆了三盆多肉植物。|多肉|用户办公桌上放了什么绿植？|What plants are on the user's desk?
garden|绿萝|阳台的绿萝每周六浇一次水。|绿萝多久浇水？|家里那盆常见的藤蔓植物多久浇一次？|How often is the pothos watered?
photo,device|富士|我用的相机是富士X-T4，平时喜欢拍街景，最常用的是一支35毫米的定焦镜头。|富士|我拍照用的是什么器材？|Which camera do I use?
photo|摄影展|用户的一组胶片作品入选了本地的摄影展。|摄影展|用户的哪些作品被选中展出了？|What did the user get accepted into a local exhibition?
device|iPhone|用户用的手机是iPhone 15。|iPhone|用户平时用什么品牌的智能手机？|What phone does the user have?
!device|键盘|我把机械键盘从青轴换成了静音的红轴。|机械键盘|我打字用的外设最近换了什么？|What switches does my mechanical keyboard use now?
device|ThinkPad|公司给用户配的笔记本电脑是ThinkPad X1。|ThinkPad|用户的工作电脑是什么型号？|What laptop did the company give the user?
device,transport,commute,podcast|耳机|我通勤时戴降噪耳机听播客，地铁上太吵，不戴耳机几乎听不清。|降噪耳机|我在路上用什么设备隔绝噪音？|What do I listen to on my commute?
money|基金|我每个月定投两千元指数基金。|基金|我每月固定投资多少钱？|How much do I invest in index funds each month?
money,purchase|预算|用户这个月的购物预算是三千元。|购物预算|用户这个月最多打算花多少钱买东西？|What is the user's shopping budget this month?
money|信用卡|我的信用卡账单日是每月十五号。|信用卡|我每月哪天出账单？|When is my credit card statement date?
umbrella,weather|伞|今天下午突然下了大雨，我的伞落在了公司。|伞落在哪了？|我今天下午遇到了什么天气？|Where did I leave my umbrella?
health|感冒|用户这周感冒了，在家休息了两天。|感冒|用户这周身体哪里不舒服？|Why did the user stay home this week?
health,dental,appointment|牙医|我约了周四下午三点看牙医。|牙医|我周四下午约了什么医生？|When is my dentist appointment?
health,appointment|体检|公司年度体检安排在下周二上午，地点在单位附近的体检中心，需要空腹，前一天晚上十点以后就不能吃东西了。|体检|下周二上午公司组织什么检查？|When is the annual health check-up?
sleep,health|失眠|用户最近经常失眠，凌晨两点才能睡着。|失眠|用户最近睡得怎么样？|Has the user been sleeping well?
sleep,morning|起床|我习惯早上六点起床。|我几点起床？|我每天早上什么时候醒来下床？|What time do I get up?
health|隐形眼镜|用户近视六百度，平时戴隐形眼镜。|隐形眼镜|用户视力怎么样，用什么矫正？|Does the user wear contact lenses?
health,food,morning|维生素|我每天早饭后吃一片维生素D。|维生素|我每天早饭后服用什么补充剂？|What supplement do I take after breakfast?
clothes|鞋码|用户穿衣服的尺码是L，鞋码是42。|鞋码|用户穿多大号的鞋？|What is the user's shoe size?
clothes,event|西装|我下周要去定做一套西装参加婚礼。|西装|我要为参加喜宴准备什么正装？|What am I getting tailored next week?
color|深蓝色|用户最喜欢的颜色是深蓝色。|深蓝色|用户最偏爱什么色调？|What is the user's favorite color?
theme,color|主题|用户偏好使用深色主题。|用户喜欢什么主题？|用户喜欢界面暗一点还是亮一点？|Does the user prefer light or dark mode?
theme|字号|用户觉得默认字体太小，希望所有页面字号调到16。|字号|用户对界面文字大小有什么要求？|What font size does the user want?
comm|微信|用户希望重要通知通过微信发送，不要发邮件，因为邮箱里每天有几百封自动邮件，重要的消息很容易被淹没。|微信|用户希望通过哪种聊天工具接收重要提醒？|How does the user want to receive important notifications?
comm|短信|我开会时不接电话，有急事请发短信。|短信|我在会议中怎么联系比较好？|How should people reach me during meetings?
reply|简洁|用户要求回复尽量简洁，不要超过三段。|简洁|用户对回答的篇幅有什么要求？|How long should answers to the user be?
reply,lang|中文|用户希望助手始终用中文回答。|中文回答|用户希望助手用哪种语言交流？|What language should the assistant reply in?
tz,home|时区|用户在新加坡，使用UTC+8时区。|时区|用户所在地比格林尼治时间快几个小时？|What time zone is the user in?
schedule|午休|我每天中午十二点半到一点半午休，这段时间别安排会。|午休|我中午哪段时间不方便安排事情？|When is my lunch break?
wfh|远程办公|用户每周三、周五远程办公。|远程办公|用户哪几天在家上班？|Which days does the user work from home?
!meeting|周会|团队的周会从周一改到了周三。|周会|团队的例会现在是星期几？|Which day is the weekly team meeting now?
meeting|季度汇报|和客户的季度汇报会定在下周五下午两点。|季度汇报|下周五下午要和谁开会？|When is the quarterly client review?
meeting|站会|每天上午九点半开十五分钟站会。|站会几点？|团队每天早上的短会几点开始？|What time is the daily stand-up?
meeting,job|面试|我明天上午十点有一场线上面试。|面试|我明天上午十点有什么安排？|When is my interview?
!meeting,team|一对一|和经理的一对一沟通从每周改成了每两周一次。|一对一|我和上级单独谈话的频率是多少？|How often are the one-on-ones with the manager now?
deadline,release|上线|新版本计划在六月十八日上线。|上线|新版本哪天发布？|When is the new version going live?
deadline,study|论文|论文初稿的截止日期是本月二十五号。|论文|我的学术稿件初稿哪天必须交？|When is the thesis draft due?
!deadline|验收|项目验收从月底推迟到了下个月十号。|验收|项目交付检查现在定在哪天？|When is the project acceptance review now?
port|9443|测试环境的API监听在9443端口。|9443|测试环境的接口服务通过哪个入口访问？|Which port does the test environment API listen on?
port|8080|本地开发服务器默认跑在8080端口。|8080|本地调试时应该在浏览器里访问哪个地址？|What port does the local dev server use?
!db|PostgreSQL|用户要求把数据库从MySQL换成PostgreSQL。|PostgreSQL|用户想迁移到哪个存储系统？|Which database does the user want to switch to?
cache|Redis|缓存层使用Redis，过期时间设为十分钟。|Redis|缓存数据多久失效？|What is the cache expiry time?
editor|VS Code|我平时用VS Code写代码，装了Vim插件。|VS Code|我写程序用的是什么编辑工具？|Which editor do I use?
proglang|Go语言|后端服务用Go语言编写。|Go语言|后端是用什么编程语言开发的？|What language is the backend written in?
ci,git|CI|CI在每次合并到main时运行。|CI什么时候运行？|持续集成流水线在什么时候触发？|When does the CI pipeline run?
deploy,cloud|阿里云|生产环境部署在阿里云杭州区域。|阿里云|线上服务托管在哪家云厂商的哪个地域？|Where is production hosted?
!backup,storage|备份|我们把备份从S3迁到了公司的NAS上。|备份存在哪？|数据的副本现在存放在哪里？|Where are the backups stored now?
git|develop|所有新功能都要从develop分支拉出来开发。|develop分支|新功能开发应该基于哪条代码线？|Which branch should feature branches be created from?
test|覆盖率|用户要求每个新函数都必须配单元测试，覆盖率不低于80%。|覆盖率|对新代码的测试有什么最低要求？|What test coverage does the user require?
monitor,chattool,oncall|Grafana|监控大盘用的是Grafana，告警发到钉钉群，夜里的严重告警还会同时打电话给值班的人。|Grafana|系统指标的可视化面板用什么工具？|What dashboard tool is used for monitoring?
os|Ubuntu|服务器统一用Ubuntu 22.04。|Ubuntu|服务器装的是什么操作系统？|What OS do the servers run?
container|Docker|所有服务都用Docker打包，镜像推到公司的私有仓库，标签统一用版本号，方便回滚。|Docker|服务是用什么方式打包交付的？|How are the services packaged?
deps|pnpm|前端项目用pnpm管理依赖，不要用npm。|pnpm|前端装包用哪个工具？|Which package manager does the frontend use?
style|缩进|代码缩进统一用四个空格，不用Tab。|缩进|代码的空白对齐规范是什么？|What indentation style does the code use?
api|限流|对外API每个用户每分钟限流一百次请求，超过之后返回429错误，客户端需要等一分钟再重试。|限流|外部接口每分钟最多允许调用几次？|What is the API rate limit?
auth|密码|用户要求密码至少十二位并包含特殊字符。|密码规则|账号登录口令的复杂度要求是什么？|What are the password requirements?
dns|域名|公司官网的域名下个月到期，需要续费。|域名|官网的网址注册什么时候过期？|When does the website domain expire?
!framework|React|前端框架从Vue迁移到了React，老页面会在下个季度之前逐步重写完。|React|前端现在基于哪个UI库开发？|Which frontend framework is used now?
queue|Kafka|订单事件通过Kafka传递，保留七天。|Kafka|订单消息在队列里保存多久？|How long are order events retained?
cron|定时任务|数据同步的定时任务每天凌晨三点执行。|定时任务|夜间自动拉取数据的作业几点开始？|When does the data sync job run?
process|审批|每个合并请求至少需要两个人审批。|审批|合并代码前需要几个人同意？|How many approvals does a merge request need?
license|MIT|这个项目使用MIT开源协议。|MIT|项目以什么许可证对外发布？|What license is the project under?
docs|飞书|项目文档统一写在飞书知识库里。|飞书知识库|项目说明资料放在哪里？|Where is the project documentation kept?
vpn|VPN|在家访问内网需要先连公司的VPN。|VPN|在家怎么访问公司内部系统？|How do I access the intranet from home?
proglang|Rust|用户想用Rust重写图像处理模块。|Rust|用户想用什么语言重做处理图片的那部分代码？|What language does the user want to rewrite the image module in?
!editor,proglang|IntelliJ|我把Java开发的IDE从Eclipse换成了IntelliJ IDEA。|IntelliJ|我最近换了什么开发工具？|Which IDE do I use for Java now?
storage,cloud|OSS|用户上传的图片存在阿里云OSS。|OSS|用户上传的照片保存在什么服务上？|Where are uploaded images stored?
db,log|MongoDB|日志数据存在MongoDB里，按月分集合。|MongoDB|日志按什么方式分开存放？|Which database stores the logs?
test,payment|压测|下周要对支付接口做一次压测。|压测|下周要对哪个接口做性能检验？|What is being load-tested next week?
!ci|GitHub Actions|我们把CI从Jenkins迁到了GitHub Actions。|GitHub Actions|持续集成现在用什么平台？|Which CI system do we use now?
api,docs|Swagger|接口文档用Swagger自动生成。|Swagger|接口说明是怎么产出的？|How is the API documentation generated?
!auth|扫码登录|后台管理系统改用企业微信扫码登录。|扫码登录|管理后台现在怎么进入？|How do admins log into the back office now?
friend,event|同学聚会|下周六晚上有高中同学聚会。|同学聚会|我下周六晚上要跟谁见面？|What is happening next Saturday evening?
volunteer|志愿者|用户每个月去社区图书馆做一次志愿者，主要是帮小朋友挑选绘本和整理归还的图书。|志愿者|用户每月在社区做什么公益活动？|Where does the user volunteer?
study,proglang|数据分析|我报了一个线上的Python数据分析课，每周二、周四晚上各上一次，每次两个小时。|数据分析课|我最近报了什么网课？|What online course did I sign up for?
study|考研|用户正在准备明年的考研。|考研|用户明年要参加什么升学考试？|What exam is the user preparing for next year?
car|保养|我的车下周要去4S店做保养。|保养|我的汽车下周要去店里干什么？|When is my car due for service?
purchase,device,home|扫地机器人|用户在双十一买了一台扫地机器人，设置成每天上午十点自动打扫客厅和卧室。|扫地机器人|用户在购物节买了什么家电？|What did the user buy during Singles' Day?
art|毛笔字|我每天晚上练一小时毛笔字。|毛笔字|我晚上练什么传统艺术？|What do I practice every evening?
podcast|忽左忽右|用户最喜欢的播客是《忽左忽右》。|忽左忽右|用户最爱听哪档音频节目？|What is the user's favorite podcast?
!social|微博|我已经注销了微博账号。|微博|我是不是已经删掉了某个社交媒体账号？|Did I delete my Weibo account?
!health,smoke|戒烟|用户三个月前戒烟了。|戒烟|用户现在还有吸烟的习惯吗？|Does the user still smoke?
weight,health|七十公斤|我的目标是年底前减到七十公斤。|七十公斤|我年底前的体重目标是多少？|What is my target weight?
blood,health|血型|用户的血型是O型。|血型|用户是哪种血液类型？|What is the user's blood type?
zodiac|星座|用户说自己是天蝎座，很相信星座。|星座|用户信不信占星那一套？|What is the user's star sign?
hometown,home|烟台|我老家在山东烟台，盛产苹果。|烟台|我是哪里人？|Where is my hometown?
education|浙江大学|用户毕业于浙江大学计算机系。|浙江大学|用户在哪所学校读的本科，学什么专业？|Where did the user go to university?
name|小林|用户希望被称呼为“小林”。|小林|我该怎么叫用户？|What should I call the user?
parent,hobby,outdoor|钓鱼|我爸退休后迷上了钓鱼。|钓鱼|我父亲退休以后有什么新爱好？|What hobby did my dad pick up after retiring?
collect|乐高|用户收集乐高，已经拼了两百多套。|乐高|用户收藏什么积木玩具？|What does the user collect?
travel,visa|签证|用户的美国签证还在审理中。|签证|用户去美国的入境许可办下来了吗？|What is the status of the user's US visa?
!internet|宽带|家里的宽带从电信换成了联通。|宽带|家里网络现在用哪家运营商？|Which provider does the home internet use now?
!phonenum|手机号|用户换了新的手机号，尾号是8866。|手机号|用户新的联系号码最后四位是多少？|What are the last digits of the user's new phone number?
mindfulness,sleep|冥想|我每天睡前冥想十分钟。|冥想|我睡觉前会做什么放松练习？|What do I do for ten minutes before sleep?
parcel|丰巢|用户的快递放在了小区门口的丰巢柜里。|丰巢|用户的包裹放在哪了？|Where was the user's package left?
key|备用钥匙|我把备用钥匙放在了邻居张阿姨家。|备用钥匙|家里多出来的那把开门工具在谁那儿？|Who has my spare key?
utility|停电|小区周六上午九点到十二点停电检修。|停电|周六上午小区有什么维修安排？|When is the power outage this weekend?
car|车牌|用户的车牌号是京A·12345。|车牌|用户的汽车号码是多少？|What is the user's license plate number?
money,job|工资|公司每月十号发工资。|发工资|每个月哪天发薪？|When is payday?
insurance,parent|医疗保险|我给父母买了一份医疗保险。|医疗保险|我为爸妈购买了什么保障？|What insurance did I buy for my parents?
!os,device|Mac|用户把工作电脑从Windows换成了Mac。|Mac|用户现在的工作电脑用什么系统？|What computer does the user use for work now?
!workhours,job|上班时间|公司上班时间从九点改成了九点半。|上班时间|公司现在几点开始工作？|What time does work start now?
!drink|燕麦奶|用户喝咖啡不再加牛奶，改成加燕麦奶。|燕麦奶|用户喝咖啡时现在加什么？|What does the user add to coffee now?
!music|网易云|我把听歌软件从QQ音乐换成了网易云音乐。|网易云|我现在用哪个应用播放音乐？|Which music app do I use now?
!meeting|会议室|周会的会议室从301换到了502。|会议室|团队例会的开会地点改到哪了？|Which room is the weekly meeting in now?
!child,art|兴趣班|女儿的兴趣班从舞蹈换成了绘画。|兴趣班|女儿现在课外学什么？|What extracurricular class does my daughter take now?
!food|带饭|用户决定少点外卖，改为自己带饭。|带饭|用户现在午饭怎么解决？|How is the user handling lunch now?
!transport,commute,bike|共享单车|我不再开车上班了，改骑共享单车去地铁站。|共享单车|我现在怎么去上班？|How do I commute now?
!infra|机房|测试服务器从北京机房迁到了上海机房。|机房|测试服务器现在放在哪个城市？|Where is the test server located now?
!db|MySQL|数据库从MySQL 5.7升级到了8.0。|MySQL|数据库现在是哪个大版本？|Which database version are we on now?
!port|8800|管理后台的端口从8000改成了8800。|8800|管理后台现在通过哪个入口号访问？|What port is the admin panel on now?
!proglang|TypeScript|前端代码从JavaScript全部迁移到了TypeScript。|TypeScript|前端现在用哪种带类型的脚本语言？|What language is the frontend code written in now?
!chattool,comm|飞书|团队沟通工具从钉钉换成了飞书。|团队用飞书吗？|团队现在用什么软件沟通？|What chat tool does the team use now?
!loan,money|房贷|用户把房贷从等额本息改成了等额本金。|房贷|用户买房借的钱现在按什么方式还？|How is the user repaying the mortgage now?
!sleep|睡觉时间|我把睡觉时间从凌晨一点提前到了十一点。|睡觉时间|我现在晚上几点上床？|What time do I go to bed now?
!pet|猫粮|用户给猫换了一种无谷猫粮。|猫粮|用户给宠物换了什么口粮？|What food did the user switch the cat to?
!appearance|短发|用户上周把长发剪成了短发。|短发|用户最近换了什么造型？|What did the user do with their hair last week?
!job,team|后端开发组|我从测试组调到了后端开发组。|后端开发组|我现在在哪个组？|Which team am I on now?
!email|邮箱|用户的工作邮箱改成了lin@newcorp.com。|邮箱|用户现在的工作联系地址是什么？|What is the user's work email now?
!theme,color,editor|浅色|用户把编辑器主题从深色改回了浅色。|浅色|用户现在的编辑器界面是亮的还是暗的？|Which theme does the user use in the editor now?
!travel|西安|去西安的行程从五月推迟到了七月。|西安|那趟去古都的旅行改到几月了？|When is the Xi'an trip now?
food|咖喱|我喜欢吃日式咖喱饭，但不要太辣。|咖喱|我喜欢哪种日本风味的盖饭？|What Japanese dish do I like?
food,health|少放盐|医生让用户做饭少放盐。|少放盐|医生对用户的饮食调味有什么叮嘱？|What did the doctor say about salt?
drink|奶茶|用户每周最多喝一杯奶茶。|奶茶|用户多久喝一次含糖饮品？|How often does the user have bubble tea?
sport|乒乓球|我中学时拿过市里乒乓球比赛的亚军。|乒乓球|我中学时在哪项球类比赛拿过奖？|What competition did I place second in during middle school?
grandparent,sport,morning|太极|用户的奶奶每天早上在公园打太极拳。|太极拳|用户的祖母清晨在公园练什么？|What does the user's grandmother do in the park every morning?
music|小提琴|我小时候学过八年小提琴。|小提琴|我童年学了很多年的乐器是什么？|Which instrument did I study as a child?
music,company|KTV|每个月部门会组织一次KTV活动。|KTV|部门每月组织的唱歌活动是什么？|What does the department organize every month?
film|纪录片|用户喜欢看自然类纪录片，比如《地球脉动》。|纪录片|用户爱看哪类讲动物和大自然的片子？|What kind of shows does the user like?
book|三联生活周刊|我订阅了《三联生活周刊》。|三联生活周刊|我订了哪本期刊？|Which magazine do I subscribe to?
game|王者荣耀|用户午休时会和同事开黑打王者荣耀。|王者荣耀|用户中午和同事一起玩什么手游？|What mobile game does the user play at lunch?
game,puzzle,sleep|数独|我每天睡前做一道数独。|数独|我睡前会玩什么数字谜题？|What puzzle do I do before bed?
pet,child|仓鼠|孩子养了两只仓鼠，名字叫豆豆和米米。|仓鼠|孩子的小宠物叫什么？|What are the names of the kid's hamsters?
pet|金毛|用户家的金毛今年五岁了。|金毛|用户家的狗多大了？|How old is the user's golden retriever?
child,study|补习班|儿子每周末上数学补习班。|补习班|儿子周末要去上什么课？|What does my son attend on weekends?
child,schedule|接孩子|每天下午四点半由用户去学校接孩子。|几点接孩子？|每天放学后谁把小孩带回家？|When does the user pick up the kids from school?
child,spouse|预产期|用户的妻子预产期在明年二月。|预产期|用户家的宝宝预计什么时候出生？|When is the user's wife due?
parent,comm|视频电话|我妈妈每周日晚上会打视频电话过来。|视频电话|我母亲每周什么时候联系我？|When does my mom video-call me?
home,money|物业费|小区物业费每年一月缴纳。|物业费|小区的管理费哪个月交？|When is the property management fee due?
device,home|小爱音箱|我家客厅放了一台小爱音箱，用来控制灯。|小爱音箱|我家客厅用什么设备控制灯光？|What device controls the lights in my living room?
job,review|绩效|用户上半年的绩效评级是A。|绩效|用户上半年的考核结果怎么样？|What was the user's performance rating?
job,career|高级工程师|我希望明年能升到高级工程师。|高级工程师|我明年的职业目标是什么？|What promotion am I aiming for?
team,job|实习生|组里新来了一个实习生叫小陈，由用户带。|实习生|用户现在负责指导哪位新人？|Who is the user mentoring?
transport,travel|高铁|我更喜欢坐高铁出差，不喜欢坐飞机。|高铁|我出差偏好哪种交通方式？|How do I prefer to travel for business?
travel,seat|靠窗|用户坐飞机喜欢选靠窗的座位。|靠窗|用户订航班时喜欢什么位置？|Which seat does the user prefer on flights?
travel,spouse|马尔代夫|我们蜜月打算去马尔代夫。|马尔代夫|我们的新婚旅行目的地是哪里？|Where are we going for our honeymoon?
health,dental|牙齿矫正|用户在做牙齿矫正，每月复诊一次，医生说大概还需要一年半才能摘掉牙套。|牙齿矫正|用户每个月要去复诊什么？|What dental treatment is the user undergoing?
health,desk|颈椎|我颈椎不好，显示器要调到和眼睛平齐。|颈椎|我脖子不舒服，对屏幕高度有什么要求？|Why should my monitor be at eye level?
health,allergy|青霉素|用户对青霉素过敏。|青霉素|用户不能用哪种抗生素？|Which medicine is the user allergic to?
health,allergy|花粉|每年春天我都会花粉过敏。|花粉|我春天为什么老打喷嚏？|What am I allergic to in spring?
sleep,schedule|午睡|用户午饭后习惯午睡二十分钟。|午睡|用户吃完午饭后一般做什么？|Does the user take a nap after lunch?
device,desk|显示器|我用两台27寸显示器，一台竖着放。|显示器|我的桌面有几块屏幕？怎么摆的？|How many monitors do I use?
backup,storage,photo,cloud|百度网盘|用户的照片都备份在百度网盘里。|百度网盘|用户的照片存在哪个云端服务？|Where does the user back up photos?
auth,password|1Password|我用1Password管理所有密码。|1Password|我用什么工具保存各种账号的登录口令？|What password manager do I use?
browser|Chrome|用户习惯用Chrome浏览器，不用Safari。|Chrome|用户上网用哪个浏览工具？|Which browser does the user use?
typing|双拼|我用的是双拼输入法。|双拼|我打中文用哪种方案？|Which Chinese input method do I use?
log,monitor|日志级别|生产环境日志级别设为WARN。|日志级别|线上记录的输出等级是多少？|What is the production log level?
api,payment|超时|调用支付网关的超时时间是五秒。|超时|付款接口的请求最多等多久？|What is the payment gateway timeout?
proxy,infra|Nginx|反向代理用的是Nginx。|Nginx|前面做转发的是什么软件？|What is used as the reverse proxy?
container,deploy|Kubernetes|服务部署在Kubernetes集群上，共三个节点。|Kubernetes|服务所在的编排平台有多少台机器？|How many nodes does the cluster have?
release|灰度|新功能先灰度给百分之五的用户。|灰度|新功能一开始开放给多少比例的用户？|What percentage of users get new features first?
style,proglang|black|Python代码用black格式化。|black|后端脚本的排版由哪个工具自动处理？|Which formatter is used for Python code?
git,style|提交信息|提交信息要用英文，并以动词开头。|提交信息|代码记录说明有什么书写要求？|What are the rules for commit messages?
dns,cert|SSL|网站的SSL证书由Let's Encrypt自动续期。|SSL证书|网站的安全凭证怎么更新？|How is the SSL certificate renewed?
gpu,ml|A100|训练模型用的是四张A100显卡。|A100|训练用的是什么硬件？|What GPUs are used for training?
ml|开源模型|用户想在本地跑一个七十亿参数的开源模型。|开源模型|用户想在自己电脑上运行什么？|What does the user want to run locally?
analytics,payment|埋点|产品要求在支付页面增加埋点统计。|埋点|支付页面需要加什么数据采集？|What needs to be added to the payment page?
auth,account|admin_test|测试环境的管理员账号是admin_test。|admin_test|测试环境用哪个管理员用户名登录？|What is the admin account on the test environment?
event,company,home|年会|公司年会定在一月十八号，在国贸的酒店，每个部门都要准备一个节目。|年会|公司年底大聚会哪天办？|When is the company's annual party?
event,sport,outdoor,company|团建|下个月部门团建去爬长城，早上七点在公司门口集合坐大巴出发。|团建|下个月部门集体活动去哪？|Where is next month's team-building trip?
event,study|讲座|用户报名了周六下午的AI讲座。|讲座|用户周六下午要去听什么？|What talk did the user sign up for on Saturday?
health|献血|我上周去献血了，献了四百毫升。|献血|我上周做了什么公益的医疗捐助？|What did I donate last week?
money,app|记账|用户用随手记App记账。|记账|用户用什么软件管理日常开销？|What app does the user use to track expenses?
money,job|报销|出差的发票要在月底前提交报销。|报销|出差的单据什么时候之前要交？|When must travel receipts be submitted?
outdoor|露营|用户喜欢周末带家人去郊外露营，家里常备帐篷、天幕和折叠桌椅。|露营|用户周末带家人去野外过夜做什么？|What does the user do with family on weekends outdoors?
craft|手账|我喜欢做手账，收集了很多胶带。|手账|我有什么手工记录的爱好？|What craft hobby do I have?
drink|拉花|用户在学做咖啡拉花。|拉花|用户最近在练习什么咖啡技巧？|What coffee skill is the user learning?
astronomy,outdoor|望远镜|我周末会带望远镜去郊区看星星。|望远镜|我周末去郊外观测什么？|What do I do with my telescope?
dance,sport|街舞|用户每周三晚上去学街舞。|街舞|用户周三晚上去学什么舞蹈？|What dance class does the user take?
car,insurance|车险|我的车险下个月到期。|车险|我的汽车保单什么时候要续？|When does my car insurance expire?
parent,health|高血压|用户的父亲有高血压，每天早晚各吃一次药，家里备了一台电子血压计。|高血压|用户的父亲有什么慢性病？|What condition does the user's father have?
internet,office|WiFi|办公室的WiFi名称是Office-5G。|WiFi|办公室的无线网络叫什么？|What is the office wireless network called?
office,printer|打印机|三楼的打印机坏了，要去五楼打印。|打印机|现在要去哪一层打文件？|Where should I go to print documents?
office,desk|工位|用户的工位在十二楼靠窗的位置。|工位|用户在公司坐在哪？|Where is the user's desk?
food,office|食堂|公司食堂周三有红烧排骨。|食堂|公司员工餐厅星期三供应什么好菜？|What's served in the cafeteria on Wednesdays?
home,device|加湿器|卧室的加湿器每天要加一次水。|加湿器|卧室里哪台电器每天要补水？|How often does the bedroom humidifier need refilling?
selling,bike|闲鱼|用户想在闲鱼上卖掉旧的自行车。|闲鱼|用户打算通过哪个二手平台卖东西？|What does the user want to sell?
home|邻居|楼上邻居最近在装修，白天电钻声特别吵，据说还要持续一个多月。|邻居|最近白天家里噪音的来源是什么？|Why is it noisy at home during the day?
"""

EN_POOL = r"""
sport,outdoor|hiking|I go hiking in the Blue Ridge Mountains most Sunday mornings, usually a loop of eight to ten miles, and I try to be on the trail before sunrise to avoid the crowds.|hiking|What outdoor activity do I do on Sunday mornings?|我周日早上通常做什么户外活动？
sport,sibling|tennis|The user plays tennis with their brother every Thursday evening.|tennis|What racket sport does the user play with a sibling?|用户每周四晚上和兄弟打什么球？
sport|marathon|I finished the Chicago Marathon last October in four hours ten minutes, which was twenty minutes slower than I hoped because of the heat after mile eighteen.|marathon time|What was my finishing time in that long-distance race last fall?|我上次跑马拉松用了多长时间？
sport|bouldering|The user goes bouldering at a climbing gym twice a week.|bouldering|What indoor wall sport does the user practice?|用户每周去攀岩几次？
sport,spouse|hot yoga|My wife and I take a hot yoga class on Saturday mornings.|hot yoga|What class do my spouse and I attend on Saturdays?|我和妻子周六早上上什么课？
sport,child|soccer|The user coaches his son's under-10 soccer team, with practice on Tuesday evenings and games most Saturday mornings.|soccer|What youth team does the user coach?|用户给儿子的什么球队当教练？
!sport,outdoor|gym membership|I cancelled my gym membership and started running outdoors instead.|gym membership|Where do I exercise now?|我现在在哪里锻炼？
sport|golf|The user's handicap in golf is 18.|What is the user's golf handicap?||用户的高尔夫差点是多少？
sport,outdoor|kayaks|We rent kayaks on the lake every summer, usually during the last week of July when the water is warmest, and we stay out on the water from late morning until the wind picks up in the afternoon.|kayaks|What water activity do we do each summer?|我们每年夏天在湖上做什么？
sport,health|knee surgery|The user is recovering from knee surgery and can't run until March.|knee surgery|Why is the user unable to jog right now?|用户为什么暂时不能跑步？
music|piano|I've been taking piano lessons since January.|piano|What instrument lessons am I taking?|我从一月开始学什么乐器？
music|Radiohead|The user's favorite band is Radiohead.|Radiohead|Which group does the user like listening to most?|用户最喜欢哪个乐队？
music|lo-fi|I listen to lo-fi playlists on Spotify while I work.|lo-fi|What kind of background tunes do I play while working?|我工作时听什么音乐？
music|choir|The user sings tenor in a community choir.|choir|What vocal part does the user sing in the local group?|用户在合唱团唱什么声部？
music,travel|Coldplay|I have tickets to see Coldplay in London on June 14.|Coldplay|Which band am I seeing live in June?|我六月要去伦敦看谁的演唱会？
!music|Spotify|I switched from Apple Music to Spotify because of the family plan.|Spotify|Which streaming service do I use for songs now?|我现在用哪个音乐平台？
food|ramen|Lunch today was a bowl of ramen near the office.|ramen|What did I eat at midday?|我今天午饭吃了什么？
food|vegetarian|The user is vegetarian but eats eggs and dairy, so restaurant suggestions should always include a few meat-free mains rather than just salads.|vegetarian|Does the user eat meat?|用户吃肉吗？
food,health|shellfish|The user has a severe shellfish allergy and carries an EpiPen, so any restaurant suggestion must be checked for shrimp, crab and lobster dishes.|shellfish|Is there any seafood the user must avoid?|用户对什么食物过敏？
food|cilantro|I can't stand cilantro; it tastes like soap to me.|cilantro|Which herb do I dislike?|我讨厌吃哪种香料？
food|Thai|My favorite cuisine is Thai, especially green curry.|Thai food|What type of food do I like best?|我最喜欢哪国菜？
food,company|pizza|We ordered pizza for the team on Friday to celebrate the release.|pizza|What did we get for the team to eat on Friday?|周五我们给团队点了什么吃的？
food,morning|intermittent fasting|The user skips breakfast and does intermittent fasting until noon.|intermittent fasting|Does the user eat in the morning?|用户吃早饭吗？
food|spicy|The user can't handle spicy food at all.|spicy|How much heat can the user tolerate in dishes?|用户能吃辣吗？
!food,health|gluten|I cut out gluten after my doctor's advice last spring.|gluten|What did I remove from my diet on medical advice?|我听医生建议戒掉了什么？
food,birthday|sushi|My birthday dinner is booked at a sushi place on Friday.|sushi|What kind of restaurant did I reserve for my celebration dinner?|我的生日晚餐订在什么餐厅？
!drink|green tea|I gave up coffee and switched to green tea.|green tea|What do I drink now instead of my old caffeine habit?|我现在还喝咖啡吗？
drink|espresso|The user drinks a double espresso every afternoon at three.|espresso|What does the user have at 3 pm every day?|用户每天下午三点喝什么？
drink,collect|Bordeaux|The user collects red wine from Bordeaux.|Bordeaux|What kind of bottles does the user collect?|用户收藏什么酒？
drink|alcohol|I don't drink alcohol at all.|alcohol|Do I ever have beer or wine?|我喝酒吗？
drink,sport|smoothie|The user makes a spinach smoothie after every workout.|smoothie|What does the user blend after exercising?|用户运动后喝什么？
pet|Biscuit|My dog Biscuit is a three-year-old beagle.|Biscuit|What's the name of my pet?|我的狗叫什么名字？
pet|Miso|The user has two cats named Miso and Tofu.|Miso|What are the user's pets called?|用户的猫叫什么名字？
pet,health|vet appointment|The cat's vet appointment is next Tuesday at 4 pm.|vet appointment|When does the cat need to see the animal doctor?|猫什么时候去看兽医？
pet|parrot|My parrot Kiwi can say "good morning".|parrot|What phrase can my bird say?|我的鹦鹉会说什么？
pet|dog walker|The user hired a dog walker for weekdays at noon.|dog walker|Who takes the user's pet out on weekdays?|用户工作日中午谁来遛狗？
child|daughter|The user's daughter starts school in September.|When does the user's daughter start school?|When does the user's little girl begin classes?|用户的女儿什么时候开始上学？
child,birthday|Leo|My son Leo turns six in May.|Leo|How old will my boy be this spring?|我儿子五月几岁？
child,spouse,schedule|daycare|Daycare pickup is at 5:30 pm and my partner handles Mondays.|daycare|What time do we collect the toddler each day?|托儿所几点接孩子？
parent,comm|Dublin|My mom lives in Dublin and calls every Sunday evening around eight, so I keep that hour free and try not to book anything else then.|Dublin|Where does my mother live?|我妈妈住在哪里？
parent,health|hip replacement|The user's father is having hip replacement surgery in April, and the surgeon expects him to walk with a cane for about six weeks afterwards.|hip replacement|What operation is the user's dad getting?|用户的父亲四月要做什么手术？
spouse,job|nurse|My wife is a nurse who works night shifts at the children's hospital, so the house has to stay quiet until early afternoon.|nurse|What does my spouse do for a living?|我妻子做什么工作？
spouse|anniversary|Our wedding anniversary is on August 9.|anniversary|When did we get married?|我们的结婚纪念日是哪天？
sibling,event,travel|Lisbon|The user's sister is getting married in Lisbon next summer.|Lisbon|Where is the user's sibling's wedding?|用户的姐姐在哪里结婚？
sibling,study|PhD|My younger brother just started a PhD in chemistry.|PhD|What is my younger sibling studying?|我弟弟在读什么学位？
friend|Sam|My friend Sam is visiting from Toronto next weekend.|When is Sam visiting?|Which friend is coming from Canada next weekend?|下周末谁要来看我？
grandparent,birthday,event|grandmother|The user's grandmother turns 90 next month, and there's a family party planned.|grandmother|Which relative is celebrating a big milestone soon?|用户的奶奶下个月多少岁？
birthday|birthday|The user's birthday is on February 14.|birthday|What day was the user born?|用户的生日是哪天？
birthday,spouse,purchase|watch|I'm planning to buy my husband a watch for his birthday.|watch|What present am I getting for my husband?|我打算送丈夫什么生日礼物？
!home|Denver|The user moved from Boston to Denver in March and is still getting used to the altitude and the dry air.|Denver|Which city does the user live in now?|用户现在住在哪个城市？
home,money|rent|My rent is $2,100 a month, due on the first.|rent|How much do I pay for housing each month?|我每月房租多少？
garden,home|tomatoes|The user is growing tomatoes and basil in raised beds in the backyard.|tomatoes|What vegetables and herbs is the user growing?|用户在后院种了什么？
home|thermostat|We keep the thermostat at 68°F in winter.|thermostat|How warm do we keep the house in the cold months?|冬天家里温度设在多少？
home|bathroom|Our bathroom renovation starts on the 12th.|bathroom renovation|Which room is being remodeled soon?|家里哪个房间要装修？
internet|fiber|Our home internet plan is 500 Mbps fiber.|fiber|How fast is the connection at home?|家里的网速是多少？
job|data scientist|The user works as a data scientist at a logistics company, mostly building demand forecasts for warehouses across the Midwest.|data scientist|What is the user's profession?|用户是做什么工作的？
!job|engineering manager|I was promoted to engineering manager last month.|engineering manager|What's my new role since last month?|我上个月升到了什么职位？
job,schedule,release|working late|The user has been working late until 9 pm most nights because of the launch.|working late|How long are the user's workdays lately?|用户最近每天工作到几点？
job,vacation|vacation days|I have 12 vacation days left this year.|vacation days|How much paid time off do I have remaining?|我今年还剩几天假？
job,team|Priya|My manager's name is Priya and she's based in London.|Priya|Who is my boss?|我的经理叫什么名字？
travel|Kyoto|The user is planning a trip to Kyoto in April for cherry blossom season and wants to stay in a traditional ryokan near Gion for at least three nights.|Kyoto|Where is the user going next spring?|用户四月打算去哪里旅行？
travel|passport|My passport expires in November, so I need to renew it soon.|passport|When do my travel documents expire?|我的护照什么时候到期？
travel|Seattle|The user's flight to Seattle leaves at 7:40 am on Monday.|Seattle|What time does the user's plane depart on Monday?|用户周一几点的航班？
travel,transport|road trip|We're doing a road trip along the Pacific Coast Highway in July, starting in San Francisco and ending in San Diego, with stops in Big Sur and Santa Barbara.|road trip|What driving vacation are we taking this summer?|我们七月打算沿哪条公路自驾？
!travel|Airbnb|We cancelled the hotel in Rome and booked an Airbnb instead.|Airbnb|Where are we staying in Italy now?|我们在罗马住哪里？
travel,seat|aisle seat|The user prefers an aisle seat on long flights.|aisle seat|Where does the user like to sit on planes?|用户坐飞机喜欢什么座位？
travel,visa,appointment|Schengen|My Schengen visa appointment is on the 3rd.|Schengen|When is my European entry permit appointment?|我的签证预约在哪天？
transport,commute,bike|bike|I bike to work along the river path, about 25 minutes each way, and I keep a change of clothes in my locker at the office.|bike|How do I get to the office?|我怎么去上班？
!transport,car|Tesla|The user sold the old Honda and bought a Tesla Model 3.|Tesla|What car does the user drive now?|用户现在开什么车？
transport,commute|train|The user takes the 7:15 train into the city every weekday.|7:15 train|How does the user commute into the city?|用户每天几点坐火车进城？
car|oil change|My car is due for an oil change next week.|oil change|What maintenance does my vehicle need next week?|我的车下周要做什么保养？
car,office|parking spot|The user's parking spot at work is P3-42.|parking spot|Where does the user leave the car at work?|用户在公司的车位号是多少？
book|Dune|I'm rereading Dune and I'm halfway through the second book.|Dune|Which science fiction novel am I going through again?|我在重读哪本科幻小说？
book|book club|The user hosts a book club on the first Wednesday of each month; this month the group is discussing a long Russian novel that nobody has finished yet.|book club|What group does the user host monthly?|用户每月第一个周三主持什么活动？
book,sleep,device|Kindle|I read on a Kindle before bed every night.|Kindle|What do I do right before sleeping?|我每晚睡前做什么？
book,transport,commute|audiobooks|The user listens to history audiobooks on the drive to work.|audiobooks|What does the user listen to while driving to the office?|用户开车上班时听什么？
book|Agatha Christie|My favorite author is Agatha Christie.|Agatha Christie|Which writer do I like most?|我最喜欢的作家是谁？
film|Nolan|The user's favorite director is Christopher Nolan.|Nolan|Which filmmaker does the user admire most?|用户最喜欢哪位导演？
film|Seinfeld|I rewatch Seinfeld whenever I'm stressed.|Seinfeld|What sitcom do I put on when I'm anxious?|我压力大的时候会重看什么剧？
film,child|Pixar|Friday is movie night with the kids, usually something from Pixar.|Pixar|What do we do with the children on Friday evenings?|周五晚上和孩子们做什么？
film|Attack on Titan|The user is currently watching Attack on Titan.|Attack on Titan|What anime series is the user in the middle of?|用户最近在看什么动画？
game|Tears of the Kingdom|I'm playing Tears of the Kingdom on the Switch.|Tears of the Kingdom|What video game am I playing on my console?|我在Switch上玩什么游戏？
game|chess|The user plays chess online most evenings, is rated about 1600 in rapid, and is trying to learn the Caro-Kann defence properly.|chess|What's the user's rating in the board game they play online?|用户的国际象棋等级分是多少？
game|Dungeons & Dragons|We play Dungeons & Dragons every other Saturday.|Dungeons & Dragons|What tabletop role-playing game do we play biweekly?|我们每两周周六玩什么游戏？
game,puzzle,morning|crossword|I do the New York Times crossword every morning.|crossword|What word puzzle do I solve daily?|我每天早上做什么填字游戏？
lang,study|Duolingo|The user is learning Spanish on Duolingo, has a 200-day streak, and hopes to hold a basic conversation with coworkers from the Madrid office.|Duolingo|Which foreign language is the user studying?|用户在学哪门外语？
lang,study|Mandarin|I'm taking Mandarin classes twice a week.|Mandarin|What language course do I attend twice weekly?|我在学哪门外语？
lang,child|French|The user's kids attend a French immersion school.|French|What kind of school do the user's children go to?|用户的孩子上什么学校？
cook,food|sourdough|I bake sourdough bread every Sunday; the starter lives in the fridge during the week and gets fed on Saturday night.|sourdough|What do I bake weekly?|我每周日烤什么？
cook,food|Instant Pot|The user makes chili in the Instant Pot almost every week.|Instant Pot|What kitchen gadget does the user cook with weekly?|用户每周用什么锅做辣豆汤？
cook,food,grandparent|lasagna|My signature dish is my grandmother's lasagna.|lasagna|What is the dish I'm best known for?|我的拿手菜是什么？
garden,office|succulents|The user keeps a row of succulents on the office windowsill.|succulents|What plants does the user have at work?|用户在办公室窗台上放了什么？
garden|orchid|I water the orchid every ten days.|orchid|How often do I water my flowering houseplant?|我多久给兰花浇一次水？
photo,device|Sony|I shoot with a Sony A7 III and mostly do landscape photography with a 16-35mm lens that I rarely take off.|Sony camera|What camera do I use?|我用什么相机？
photo,device|Pentax|The user recently got into film photography with an old Pentax.|Pentax|What vintage gear has the user started shooting with?|用户最近开始玩什么相机？
device|Pixel|The user has a Pixel 8 Pro.|Pixel|What smartphone does the user carry?|用户用什么手机？
!device,os|MacBook|I replaced my old Dell with a MacBook Air.|MacBook|What computer do I use now?|我现在用什么电脑？
device|headphones|My noise-cancelling headphones are the Sony WH-1000XM5.|headphones|What do I wear to block out noise?|我用的是什么降噪耳机？
device,desk|ultrawide|The user uses a 34-inch ultrawide monitor.|ultrawide|What kind of screen does the user work on?|用户用什么显示器？
device,health|keyboard|I type on a split ergonomic keyboard because of wrist pain.|ergonomic keyboard|What input device do I use to protect my wrists?|我为什么用分体式键盘？
money,purchase|grocery budget|The user's monthly grocery budget is $600.|grocery budget|How much does the user plan to spend on food shopping each month?|用户每月买菜预算是多少？
money|401(k)|I contribute 8% of my salary to my 401(k).|401(k)|What share of my paycheck goes into retirement savings?|我工资的百分之几存入退休账户？
money|credit card|My credit card statement closes on the 20th.|credit card|When is my billing cycle cut-off?|我的信用卡账单日是哪天？
money,job|payday|Payday is the last Friday of each month.|payday|When do I get paid?|每月哪天发工资？
!loan,money|mortgage|The user refinanced their mortgage at 5.2%.|mortgage|What interest rate does the user have on the home loan now?|用户的房贷利率是多少？
umbrella|umbrella|I left my umbrella at the coffee shop on Main Street.|umbrella|Where did I forget my rain gear?|我的雨伞落在哪了？
health|flu|The user had the flu last week and missed two days of work.|flu|Why was the user off sick recently?|用户上周为什么请假？
health,dental,appointment|dentist|My dentist appointment is Thursday at 3 pm.|dentist|When am I seeing someone about my teeth?|我什么时候看牙医？
health,appointment|physical|The annual physical is scheduled for next Tuesday morning; no eating after midnight.|annual physical|When is my yearly medical checkup?|年度体检是什么时候？
sleep,health|insomnia|The user has had insomnia for weeks and rarely falls asleep before 2 am.|insomnia|How has the user been resting at night?|用户最近睡眠怎么样？
sleep,morning|5:30|I wake up at 5:30 every day, even on weekends.|wake up at 5:30|What time do I get out of bed?|我每天几点起床？
health|contact lenses|The user is nearsighted and wears contact lenses.|contact lenses|How does the user correct their vision?|用户戴隐形眼镜吗？
health,sleep|magnesium|I take magnesium before bed to help me sleep.|magnesium|What supplement do I take at night?|我睡前吃什么补充剂？
health,screen|migraines|The user gets migraines when screen brightness is too high.|migraines|What triggers the user's headaches?|什么会引起用户偏头痛？
blood,health|blood type|My blood type is A negative.|blood type|Which blood group am I?|我是什么血型？
!health,smoke|smoking|The user quit smoking in January.|smoking|Does the user still use cigarettes?|用户现在还抽烟吗？
health,appointment|therapist|I see a therapist every other Wednesday.|therapist|How often do I have counseling sessions?|我多久去一次心理咨询？
clothes|shoe|The user wears a size 10 shoe and medium shirts.|shoe size|What size footwear does the user buy?|用户穿几码的鞋？
clothes,event|navy suit|I need a navy suit for my keynote at the conference.|navy suit|What outfit do I need for the big speech I'm giving?|我在大会主题演讲时要穿什么？
color|forest green|The user's favorite color is forest green.|forest green|What hue does the user like best?|用户最喜欢什么颜色？
theme,color|dark mode|The user prefers dark mode in every app.|dark mode|Does the user like light or dim interfaces?|用户喜欢深色模式还是浅色模式？
theme|16px|The user wants larger fonts, at least 16px, in all documents.|16px|How big should text be for the user?|用户要求字号多大？
comm,chattool|Slack|The user prefers Slack messages over email for quick questions and usually answers within a few minutes during working hours.|Slack|How should I reach the user with a quick question?|用户有小问题时喜欢用什么方式沟通？
comm|phone calls|No phone calls before 10 am, please; texts are fine.|phone calls|When is it okay to ring me?|几点之前不要给我打电话？
reply|bullet points|The user wants short answers with bullet points, no long paragraphs.|bullet points|What format does the user like for responses?|用户喜欢什么样的回答格式？
reply,spelling,lang|British spelling|Use British spelling in all documents for this user.|British spelling|Should I write "colour" or "color" for the user?|给这个用户写文档要用哪种英语拼写？
email|work email|The user's work email is dana@northwind.io; personal messages should never be sent there because the company archives everything.|work email|What address should I use to write to the user at the office?|用户的工作邮箱是什么？
name|Jay|The user goes by "Jay" rather than Jason.|Jay|What does the user like to be called?|用户喜欢别人怎么称呼他？
tz,home|Central European Time|The user is based in Berlin and works on Central European Time.|Central European Time|Which time zone is the user in?|用户在哪个时区？
schedule|deep work|I block 9 to 11 am every day for deep work, no meetings.|deep work|When should nothing be scheduled for me in the morning?|我每天上午哪段时间不开会？
wfh|from home|The user works from home on Mondays and Fridays.|Which days does the user work from home?|On which days is the user not in the office?|用户哪几天在家办公？
!workhours,office|opens|The office now opens at 8 instead of 9.|office opens|What's the new start time at work?|办公室现在几点开门？
!meeting|team sync|The weekly team sync moved from Monday to Wednesday.|team sync|Which day do we have our regular group check-in now?|团队周会现在是星期几？
meeting|standup|Daily standup is at 9:45 on Zoom.|standup|What time is the morning team check-in?|每日站会几点开？
meeting|Acme|The quarterly review with Acme Corp is on Thursday at 2 pm; we need to present churn numbers and the roadmap for the next two quarters.|Acme|When is the next business review with the customer?|和客户的季度评审会是什么时候？
meeting,job|interview|I have a final-round interview with Stripe on Friday at 11, a system design session followed by a conversation with the hiring manager.|interview|What's happening with my job application on Friday?|我周五有什么面试？
!meeting,team|one-on-ones|My one-on-ones with Priya are now biweekly instead of weekly.|one-on-ones|How often do I meet individually with my boss now?|我和经理单独沟通的频率现在是多少？
meeting,company|all-hands|The company all-hands is the first Monday of every month.|all-hands|When is the company-wide meeting?|全员大会是什么时候？
deadline,release|app launch|The mobile app launch is set for June 18.|app launch|When does the mobile app go live?|移动应用哪天上线？
deadline|grant proposal|The grant proposal is due on the 30th.|grant proposal|When must the funding application be submitted?|经费申请书什么时候截止？
!deadline,release|beta|The beta release was pushed from May to July.|beta|When is the preview version shipping now?|测试版现在推迟到几月？
money,tax|taxes|I still need to file my taxes before April 15.|taxes|What paperwork is due to the IRS in mid-April?|我报税截止日是哪天？
port|staging API|The staging API listens on port 9443.|What port does the staging API use?|Which number should I use to reach the pre-production service?|预发布环境的API监听哪个端口？
port,db|5433|The local Postgres instance runs on port 5433, not the default.|5433|Where is the local database listening, since it isn't the default?|本地数据库用的是哪个端口？
!db|PostgreSQL|The team decided to migrate from MongoDB to PostgreSQL because most of our data turned out to be relational and the joins were getting painful.|PostgreSQL|Which database are we moving to?|团队决定迁移到哪个数据库？
cache|Redis|Session data is cached in Redis with a 30-minute TTL.|Redis|How long until stored sessions expire?|会话数据缓存多久过期？
!editor|VS Code|I switched my editor from Vim to VS Code last month.|VS Code|What do I write code in these days?|我现在用什么编辑器？
proglang|Python|The data pipeline is written in Python 3.11.|Python|What language are the ETL jobs written in?|数据管道用什么语言写的？
ci,git|CI|CI runs on every push to main.|CI|When do the automated builds trigger?|持续集成什么时候触发？
deploy,cloud|AWS|Production runs on AWS in us-east-1.|AWS|Where is the live environment hosted?|生产环境部署在哪里？
!backup,storage|NAS|We moved the backups from S3 to a NAS.|NAS|Where are the data copies kept now?|备份现在存在哪里？
backup,db,cron|backups|Database backups run nightly at 2 am and are kept for 30 days, after which they are deleted automatically unless someone tags them for long-term retention.|backups|How often is a data snapshot taken and how long is it retained?|数据库多久备份一次？
git|rebased|Feature branches must be rebased on main before merging.|rebased|What's the rule before merging my work into the trunk?|合并前功能分支需要做什么？
test|coverage|The user wants test coverage above 85% on new code, measured per module rather than across the whole repository.|coverage|What is the minimum testing threshold for new code?|新代码的测试覆盖率要求是多少？
monitor|Datadog|Alerts go to PagerDuty, and dashboards live in Datadog.|Datadog|Where are the monitoring dashboards?|监控面板在哪里？
os|Arch Linux|I run Arch Linux on my home desktop.|Arch Linux|What operating system is on my personal computer at home?|我家里的台式机装的是什么系统？
container,ci|Docker|Every service ships as a Docker image built in CI.|Docker|How are the services packaged for deployment?|服务是怎么打包的？
deps|pnpm|Use pnpm, not npm, for the frontend repo.|pnpm|Which package manager does the frontend repo use?|前端仓库用哪个包管理器？
style,proglang|Ruff|The Go code uses gofmt, and the Python code uses Ruff for formatting.|Ruff|Which tools keep our source files consistently laid out?|Python代码用什么格式化工具？
api|rate-limited|The public API is rate-limited to 100 requests per minute per key, and clients that exceed it receive a 429 response with a Retry-After header.|Is the public API rate-limited?|How many calls per minute can a client make to the public API?|公开API每分钟最多请求几次？
auth|Okta|Staff log in through Okta SSO.|Okta|How do employees sign in?|员工通过什么登录？
dns|domain|The company domain renews on October 2.|domain|When is the website address registration up for renewal?|公司域名什么时候续费？
!framework|React|The frontend moved from Angular to React.|React|Which UI library does the frontend use now?|前端现在用什么框架？
queue|RabbitMQ|Order events are published through RabbitMQ.|RabbitMQ|What message broker carries order events?|订单事件走什么消息队列？
cron|report job|The report job runs every Monday at 6 am UTC.|report job|When does the weekly report get generated?|报表任务什么时候运行？
process|pull request|Every pull request needs two approvals before merging.|pull request|How many sign-offs are required to merge code?|合并代码需要几个人批准？
license|Apache|The project is released under the Apache 2.0 license.|Apache|What open-source terms does the project use?|项目使用什么开源协议？
docs|Notion|All project docs live in Notion.|Notion|Where do we write up our specs and guides?|项目文档放在哪里？
vpn|WireGuard|You need the WireGuard VPN to reach internal dashboards.|WireGuard|How do I access internal tools from outside the office?|访问内部面板需要什么？
proglang|Rust|The user wants to rewrite the parser in Rust.|Rust|Which language is the user considering for redoing the text-processing component?|用户想用什么语言重写解析器？
!editor,proglang|IntelliJ|I moved from Eclipse to IntelliJ for Java work.|IntelliJ|What IDE do I use now?|我现在写Java用什么IDE？
storage,cloud|media-prod|User uploads are stored in an S3 bucket called media-prod.|media-prod|Where do uploaded files go?|用户上传的文件存在哪里？
db|SQLite|The mobile app stores data locally in SQLite.|SQLite|What does the mobile app use for on-device storage?|移动应用本地用什么数据库？
test,payment|load-testing|We're load-testing the checkout service next Wednesday.|load-testing|What performance test is planned for next Wednesday?|下周三要对结账服务做什么？
!ci|GitHub Actions|We migrated CI from Travis to GitHub Actions.|GitHub Actions|Which platform runs our builds now?|我们的CI现在用什么平台？
api,docs|OpenAPI|The API docs are generated from an OpenAPI spec.|OpenAPI|How is the API reference produced?|API文档是怎么生成的？
!auth|two-factor|The user turned on two-factor authentication for all accounts.|two-factor|What extra login security has the user enabled?|用户开启了什么登录安全措施？
!os,device|Ubuntu|The user switched their work laptop from Windows to Ubuntu.|Ubuntu|What operating system is on the user's work machine now?|用户的工作电脑现在装什么系统？
!cron|ETL|The nightly ETL job was moved from 1 am to 4 am.|ETL|When does the overnight data load run now?|夜间数据任务现在几点运行？
!port|8800|The admin dashboard moved from port 8000 to port 8800.|8800|Where is the admin dashboard reachable now?|管理后台现在在哪个端口？
!db|Postgres|We upgraded Postgres from 14 to 16 last weekend.|Postgres|Which major database version are we on now?|数据库升级到了哪个版本？
!proglang|TypeScript|The frontend codebase was converted from JavaScript to TypeScript.|TypeScript|Is the frontend typed now?|前端代码现在用什么语言？
!chattool,comm|Microsoft Teams|The company is moving from Slack to Microsoft Teams next quarter because it comes bundled with the Office licences we already pay for.|Microsoft Teams|What messaging platform are we switching to?|公司下季度改用什么聊天工具？
!db,cloud|eu-central-1|We moved the database from us-west-2 to eu-central-1 for GDPR.|eu-central-1|Which region does the database live in now?|数据库迁移到了哪个区域？
!theme,color|Dracula|I changed my terminal theme from Solarized to Dracula.|Dracula|What palette is my command-line window using now?|我的终端主题换成了什么？
!reply,lang|English|The user asked to receive all replies in English, not Spanish.|English|Which language should I answer the user in?|用户要求用什么语言回复？
!food|takeout|The user stopped ordering takeout and now brings lunch from home.|takeout|How does the user handle midday meals now?|用户现在午饭怎么解决？
!transport,commute|bus|I stopped driving to work and now take the bus.|bus|How do I get to the office these days?|我现在怎么上班？
!sleep|bedtime|I moved my bedtime from 1 am to 11 pm.|bedtime|When do I go to sleep now?|我现在几点睡觉？
!pet|grain-free|We switched the dog to a grain-free diet.|grain-free|What did we change about our pet's meals?|我们给狗换了什么狗粮？
!appearance|hair|The user cut her long hair short last week.|hair|What did the user change about her look last week?|用户上周换了什么发型？
!job,team|platform team|I transferred from the QA team to the platform team.|platform team|Which group do I work in now?|我现在在哪个团队？
!email|fastmail|The user's contact email changed to dana.k@fastmail.com.|fastmail|What address should I use to write to the user now?|用户现在的联系邮箱是什么？
!theme,color,editor|light mode|The user switched back to light mode in the IDE.|light mode|Is the user's coding environment bright or dark now?|用户的IDE现在是浅色主题还是深色主题？
!travel|Iceland|Our Iceland trip got moved from March to September.|Iceland|When is our Nordic vacation now?|我们的冰岛之旅改到几月了？
!meeting|Maple|The weekly design review moved to the Maple conference room.|Maple|Where do we meet for the weekly design critique now?|设计评审现在在哪个会议室？
!child,sport|ballet|My daughter quit ballet and started swimming lessons.|ballet|What after-school activity does my girl do now?|我女儿现在上什么课外班？
!drink|oat milk|The user now takes oat milk in coffee instead of regular milk.|oat milk|What does the user put in coffee now?|用户现在咖啡里加什么？
!internet|Comcast|We switched our home internet from Comcast to a local fiber provider.|Comcast|Who provides our home broadband now?|家里的宽带现在用哪家？
!phonenum|phone number|The user got a new phone number ending in 4417.|phone number|What digits should I dial to reach the user now?|用户新手机号的尾号是多少？
!music|cello|I stopped piano lessons and started learning the cello.|cello|Which string instrument am I learning now?|我现在在学什么乐器？
!sport|swims|The user switched from morning runs to evening swims.|swims|What is the user's exercise routine now?|用户现在什么时候锻炼、做什么运动？
!money|high-yield|I moved my savings from Chase to an online high-yield account.|high-yield|Where do I keep my savings now?|我的存款现在放在哪里？
!deploy,cloud|Vercel|The marketing site moved from Netlify to Vercel.|Vercel|Which platform hosts the promotional site now?|营销网站现在托管在哪里？
!git|default branch|The default branch was renamed from master to main.|default branch|What's the repo's primary line of development called now?|默认分支改名成什么了？
friend,event,travel|Napa|We're attending a friend's wedding in Napa on September 7 and have booked a small inn nearby for two nights.|Napa|Where is our friend getting married this fall?|我们九月去哪里参加婚礼？
friend,event|reunion|My high school reunion is on Saturday night.|reunion|What event do I have with old classmates on Saturday?|周六晚上我要和谁聚会？
volunteer|food bank|The user volunteers at the food bank every other Saturday.|food bank|Where does the user do charity work?|用户在哪里做志愿者？
study,ml|Coursera|I'm taking an online machine learning course on Coursera.|Coursera|What online class am I enrolled in?|我在上什么网课？
study|GRE|The user is preparing for the GRE in November.|GRE|What graduate admissions test is the user studying for?|用户十一月要考什么？
car|license plate|My car's license plate is 7KRP219.|license plate|What's my vehicle registration number?|我的车牌号是多少？
purchase,home,device|robot vacuum|The user bought a robot vacuum on Black Friday and set it to clean the living room every weekday while everyone is out.|robot vacuum|What cleaning gadget did the user buy during the November sales?|用户黑五买了什么？
art|watercolors|I paint watercolors on Sunday afternoons.|watercolors|What art do I make on weekends?|我周日下午画什么画？
podcast|Hardcore History|The user's favorite podcast is Hardcore History.|Hardcore History|What audio show does the user like most?|用户最喜欢的播客是什么？
!social|Instagram|I deactivated my Instagram account in the spring.|Instagram|Which social media account did I shut down?|我注销了哪个社交账号？
hometown,home|Portland|I grew up in a small town outside Portland, Maine.|Portland|Where am I from originally?|我在哪里长大？
education|Georgia Tech|The user studied mechanical engineering at Georgia Tech.|Georgia Tech|What did the user major in and where?|用户大学学的是什么专业？
parent,hobby,outdoor|fly fishing|My dad took up fly fishing after he retired and now spends most mornings on the river, tying his own flies in the evenings.|fly fishing|What new pastime did my father pick up in retirement?|我爸退休后有什么新爱好？
collect,music|vinyl|The user collects vinyl records, mostly 70s jazz.|vinyl|What does the user collect?|用户收藏什么？
outdoor,travel|Yosemite|We go camping at Yosemite every Labor Day weekend.|Yosemite|Where do we spend the long weekend in early September?|我们每年劳动节去哪里露营？
craft|bookshelf|I'm building a bookshelf in my garage workshop.|bookshelf|What furniture project am I working on?|我在车库做什么家具？
astronomy,outdoor|telescope|The user has a telescope and likes stargazing in the desert.|telescope|What does the user do at night in the desert?|用户在沙漠里晚上喜欢做什么？
dance,sport|salsa|I take salsa classes on Wednesday nights.|salsa classes|What dance do I learn midweek?|我周三晚上学什么舞？
car,insurance|car insurance|My car insurance renews on the 1st of next month.|car insurance|When is my auto policy up for renewal?|我的车险什么时候续保？
parent,health|blood pressure|The user's mother has high blood pressure and takes medication daily.|blood pressure|What chronic condition does the user's mom have?|用户妈妈有什么慢性病？
internet,office|Wi-Fi|The office Wi-Fi network is called Northwind-Guest.|Wi-Fi|What's the wireless network name at work?|办公室的无线网叫什么？
office,printer|printer|The printer on the third floor is broken; use the one on five.|printer|Where should I go to print documents now?|现在应该去哪层打印？
office,desk|desk|The user's desk is by the window on the 12th floor.|desk|Where does the user sit at work?|用户的工位在哪？
food,office|cafeteria|The cafeteria serves tacos on Tuesdays, and the line gets long after noon, so it's best to go around 11:45.|cafeteria|What's on the menu at work on Tuesdays?|公司食堂周二供应什么？
home,device|humidifier|The bedroom humidifier needs refilling every night.|humidifier|Which appliance in the bedroom needs water daily?|卧室的加湿器多久加一次水？
home|neighbors|Our upstairs neighbors are renovating, so it's loud during the day.|neighbors|Why is it noisy at home during the day?|为什么白天家里很吵？
parcel|concierge|The user's package was left with the building concierge.|concierge|Where was the user's delivery left?|用户的快递放在哪里了？
key|spare key|I left a spare key with my neighbor, Mrs. Alvarez.|spare key|Who has an extra copy of my house key?|我的备用钥匙在谁那里？
utility|power outage|There's a scheduled power outage on Saturday from 9 to noon.|power outage|When will the electricity be off this weekend?|周六什么时候停电？
health|donated blood|I donated blood at the clinic last Tuesday.|donated blood|What did I give at the clinic last week?|我上周二去献血了吗？
money,job|reimbursement|Travel receipts must be submitted for reimbursement by the end of the month.|reimbursement|When are expense claims due?|出差发票什么时候要提交报销？
money,app|YNAB|The user tracks spending in YNAB.|YNAB|What app does the user use to manage expenses?|用户用什么软件记账？
job,review|mid-year review|I got an "exceeds expectations" rating in my mid-year review.|mid-year review|How did my latest performance evaluation go?|我的年中考核结果是什么？
team,job|intern|The user is mentoring a new intern named Chloe this summer and meets her every Tuesday to review her code and talk through her questions.|intern|Who is the user guiding this summer?|用户今年夏天带哪个实习生？
job,career|staff engineer|I want to become a staff engineer within two years.|staff engineer|What career level am I aiming for?|我的职业目标是什么？
gpu,ml|H100|Model training runs on eight H100 GPUs.|H100|What hardware is used for training the models?|模型训练用的是什么显卡？
ml|language model|The user wants to run a small open-source language model on a laptop, ideally something that fits in 16 GB of memory and runs without a GPU.|language model|What does the user want to run locally on their computer?|用户想在笔记本上跑什么？
release|feature flag|New features roll out to 5% of users first behind a feature flag, and the rollout is widened only after error rates stay flat for 48 hours.|feature flag|What share of users sees new features initially?|新功能先开放给多少用户？
log,monitor|log level|Production log level is set to WARN.|log level|What severity threshold is used for production output?|生产环境日志级别是多少？
api,payment|payment gateway|Calls to the payment gateway time out after 5 seconds.|payment gateway|How long do we wait for the card processor before giving up?|支付网关超时时间是多少？
proxy,infra|Caddy|Caddy sits in front of all services as a reverse proxy.|Caddy|What web server sits in front of the apps?|反向代理用的是什么？
container,deploy,cloud|GKE|The cluster has five nodes on GKE.|GKE|How many machines run our container workloads?|集群有几个节点？
analytics|event tracking|Product wants event tracking added to the signup page.|event tracking|What instrumentation is needed on the registration page?|注册页面要加什么？
auth,account|qa_admin|The test admin account is qa_admin.|qa_admin|Which username do I use for admin testing?|测试管理员账号是什么？
browser|Firefox|I use Firefox as my main browser.|Firefox|What do I browse the web with?|我用什么浏览器？
auth,password|Bitwarden|The user keeps all passwords in Bitwarden.|Bitwarden|What does the user use to store login credentials?|用户用什么管理密码？
shell|zsh|My default shell is zsh with oh-my-zsh.|zsh|What do I type terminal commands into?|我默认用哪个命令行外壳？
git,config|dotfiles|My dotfiles are kept in a private GitHub repo.|dotfiles|Where do I keep my configuration files?|我的配置文件存在哪里？
dns,cert|Let's Encrypt|TLS certificates auto-renew through Let's Encrypt.|Let's Encrypt|How are HTTPS certs kept valid?|证书是怎么续期的？
api|/v2|All new endpoints go under /v2.|/v2|Which version prefix should new endpoints use?|新接口应该放在哪个版本路径下？
oncall|on call|I'm on call this week, from Monday to Sunday, so I should not plan anything that takes me more than thirty minutes away from my laptop.|on call|Am I responsible for production incidents this week?|这周我值班吗？
url|staging site|The staging site is at staging.northwind.io.|staging site|What's the address of the pre-production website?|预发布网站的地址是什么？
style,git|ESLint|ESLint runs as a pre-commit hook.|ESLint|What checks run before each commit?|提交代码前会运行什么检查？
git,repo|monorepo|All services live in a single monorepo.|monorepo|How is the code organized into repositories?|代码是怎么组织的？
cloud,money|AWS bill|The monthly AWS bill is around $4,000.|AWS bill|How much do we spend on cloud hosting monthly?|每月云服务费用大概多少？
book|library books|I have three library books due back on Friday.|library books|What do I need to return by Friday?|我周五要还什么？
sport,event|Lakers|The user got two tickets to the Lakers game on the 22nd.|Lakers|What game is the user going to on the 22nd?|用户22号要去看什么比赛？
selling,home|garage sale|We're having a garage sale next Saturday.|garage sale|What are we doing to sell old stuff next weekend?|我们下周六要办什么？
home,repair|plumber|The plumber is coming Wednesday morning to fix the kitchen sink, so someone needs to be home between eight and noon to let him in.|plumber|Who is coming midweek to repair something at home?|周三上午谁来修水槽？
mindfulness,morning|Headspace|I meditate for ten minutes every morning with Headspace.|Headspace|What app do I use for my morning mindfulness practice?|我每天早上用什么App冥想？
health,allergy|penicillin|The user is allergic to penicillin.|penicillin|Which antibiotic must the user avoid?|用户对什么药过敏？
health,allergy|hay fever|I get hay fever every spring.|hay fever|Why do I sneeze a lot in spring?|我春天为什么老打喷嚏？
sleep,schedule|nap|The user takes a 20-minute nap after lunch.|nap|What does the user do right after eating at midday?|用户午饭后做什么？
"""

ABSENT_POOL = r"""
zh|birthday,zodiac|生日|用户的生日是哪天？
zh|pet|狗;宠物|我的狗叫什么名字？
zh|pet|宠物;猫;狗|用户养宠物吗？
zh|backup|备份|数据库的备份多久做一次？
zh|sport|运动|用户喜欢什么运动？
zh|child|孩子;儿子;女儿|用户的孩子几岁了？
zh|parent|妈妈;母亲|我妈妈住在哪里？
zh|film|电影|用户最喜欢的电影是什么？
zh|car,transport|车|用户开什么车？
zh|db|数据库|项目用的是什么数据库？
zh|port|端口|测试环境的端口是多少？
zh|editor|编辑器|用户平时用什么编辑器写代码？
zh|health|过敏|用户对什么过敏？
zh|drink|咖啡;茶|用户喜欢喝咖啡还是茶？
zh|music|乐器|用户会弹什么乐器？
zh|travel,vacation|旅行;旅游|用户下一次旅行打算去哪里？
zh|hometown,home|老家|用户的老家在哪？
zh|job,@tech|工作;职业|用户是做什么工作的？
zh|spouse|妻子;老婆|用户的妻子叫什么名字？
zh|meeting|周会;例会;会议|团队例会是星期几？
zh|ci|CI|CI用的是什么平台？
zh|deploy|部署|生产环境部署在哪里？
zh|book|书|用户喜欢读什么书？
zh|device|手机|用户用的是什么手机？
zh|sleep,morning|起床|用户每天几点起床？
zh|home|住|用户住在哪个城市？
zh|home,money|房租|用户每月房租多少钱？
zh|color,theme|颜色|用户喜欢什么颜色？
zh|film|剧|用户最近在追什么电视剧？
zh|blood|血型|用户的血型是什么？
zh|lang|外语;英语;日语|用户在学哪门外语？
zh|travel|护照|用户的护照什么时候到期？
zh|proglang|语言|后端用的是什么编程语言？
zh|food,garden|水果|用户喜欢吃什么水果？
zh|license|协议|这个项目用的是什么开源协议？
zh|email|邮箱|用户的邮箱地址是什么？
zh|phonenum|手机号|用户的手机号是多少？
zh|os|系统|用户的电脑装的是什么操作系统？
zh|cache|缓存|缓存用的是什么？
zh|queue|队列|消息队列用的是哪个？
zh|game|游戏|用户平时玩什么游戏？
zh|sibling|弟弟;哥哥;姐姐;妹妹|用户的弟弟在哪里工作？
zh|weight|体重|用户的目标体重是多少？
zh|sleep|睡|用户最近睡眠怎么样？
zh|car|车位;停车|用户的车停在哪里？
zh|company|年会|公司年会是什么时候？
zh|transport,commute|上班|用户每天怎么上班？
zh|money|信用卡|用户的信用卡账单日是哪天？
zh|office,desk|工位|用户的工位在哪里？
zh|music|歌|用户最喜欢的歌手是谁？
zh|spouse|纪念日|用户的结婚纪念日是哪天？
zh|photo,device|相机|用户拍照用什么相机？
zh|browser|浏览器|用户用什么浏览器？
zh|style|缩进|代码缩进用几个空格？
zh|dental,health|牙|用户什么时候去看牙医？
zh|pet|猫|用户的猫几岁了？
zh|garden|植物;花|用户家里养了什么植物？
zh|study|考|用户在备考什么？
zh|money,job|工资|用户的工资哪天发？
zh|cloud|云|服务器用的是哪家云服务？
zh|zodiac,birthday|星座|用户是什么星座？
zh|name|称呼|该怎么称呼用户？
zh|api|限流;API|API的限流规则是什么？
zh|food|晚饭|我昨天晚饭吃了什么？
zh|sport|健身|用户每周去几次健身房？
zh|vpn|VPN|怎么连公司的VPN？
zh|vacation|年假|用户的年假还剩几天？
zh|parent,health|父亲;爸|用户父亲的身体怎么样？
zh|parcel|快递|用户的快递到哪了？
zh|wfh|远程|用户可以远程办公吗？
zh|reply|回复|用户对回复格式有什么要求？
zh|docs|文档|项目文档放在哪里？
zh|internet|WiFi;密码|家里的WiFi密码是多少？
zh|outdoor,sport|户外|用户喜欢哪些户外活动？
zh|friend|朋友|用户最好的朋友是谁？
zh|education|大学|用户是哪所大学毕业的？
zh|insurance|保险|用户买了什么保险？
zh|key|钥匙|用户的备用钥匙放在哪？
zh|git|分支|默认分支叫什么？
en|pet|dog;dogs|What is my dog's name?
en|birthday,zodiac|birthday|When is the user's birthday?
en|backup|backup;backups|How often are database backups taken?
en|sport|sport;sports|What sports does the user play?
en|child|kid;kids;son;daughter;child;children|How old are the user's kids?
en|parent|mother;mom|Where does my mother live?
en|film|movie;movies;film|What is the user's favorite movie?
en|car,transport|car|What car does the user drive?
en|db|database|Which database does the project use?
en|port|port|What port does the staging server use?
en|editor|editor|Which code editor do I use?
en|health|allergic;allergy|What is the user allergic to?
en|drink|coffee;tea|Does the user prefer coffee or tea?
en|music|instrument;instruments|Does the user play any instruments?
en|travel,vacation|vacation;trip|Where is the user going on their next vacation?
en|hometown,home|grew up;hometown|Where did the user grow up?
en|job,@tech|job;living|What does the user do for a living?
en|spouse|wife|What's my wife's name?
en|meeting|meeting|Which day is the weekly team meeting?
en|ci|CI|Which CI service do we use?
en|deploy|production;deployed|Where is production deployed?
en|book|book;books|What books does the user like?
en|device|phone|What phone do I have?
en|sleep,morning|wake|What time do I usually wake up?
en|home|live;lives|Which city does the user live in?
en|home,money|rent|How much is my rent?
en|color,theme|color;colour|What's the user's favorite color?
en|blood|blood|What's the user's blood type?
en|lang|foreign;learning|Which foreign language is the user learning?
en|travel|passport|When does my passport expire?
en|proglang|language;backend|What language is the backend written in?
en|food,garden|fruit|What fruit does the user like?
en|license|license|What license is the project under?
en|email|email|What's the user's email address?
en|phonenum|phone number|What's the user's phone number?
en|os|operating system|What operating system do I use?
en|cache|cache;caching|What do we use for caching?
en|queue|queue|Which message queue do we use?
en|game|game;games|What video games does the user play?
en|sibling|brother;sister|What does my brother do for work?
en|weight|weight|What is the user's target weight?
en|sleep|sleep;sleeping|Does the user have trouble sleeping?
en|car|park;parking|Where does the user park?
en|company|party|When is the company holiday party?
en|transport,commute|commute|How does the user commute?
en|money|credit card|When is the user's credit card bill due?
en|office,desk|desk|Where is the user's desk?
en|music|singer|Who is the user's favorite singer?
en|spouse|anniversary|When is our wedding anniversary?
en|photo,device|camera|What camera does the user use?
en|browser|browser|Which browser do I use?
en|style|indentation|What's the indentation style for the code?
en|dental,health|dentist|When is my next dentist visit?
en|pet|cat|How old is the user's cat?
en|garden|plants;plant|What plants does the user keep?
en|study|test;exam;studying|What test is the user studying for?
en|money,job|paid;payday|When do I get paid?
en|cloud|cloud|Which cloud provider do we use?
en|zodiac,birthday|sign|What's the user's star sign?
en|name|call;called|What should I call the user?
en|api|rate limit;API|What is the API rate limit?
en|food|dinner|What did I have for dinner last night?
en|sport|gym|How often does the user go to the gym?
en|vpn|VPN|How do I connect to the VPN?
en|vacation|vacation|How many vacation days do I have left?
en|parent,health|father;dad|How is my father's health?
en|parcel|package|Where is my package?
en|wfh|remotely;remote|Does the user work remotely?
en|reply|replies;reply|How should I format replies for the user?
en|docs|docs;documentation|Where are the project docs kept?
en|internet|Wi-Fi;password|What's the home Wi-Fi password?
en|outdoor,sport|outdoor;outdoors|What outdoor activities does the user enjoy?
en|friend|friend|Who is the user's best friend?
en|education|college;university|Where did the user go to college?
en|insurance|insurance|What insurance does the user have?
en|key|key;keys|Who has a spare key to my place?
en|git|branch|What is the default branch called?
"""

if __name__ == "__main__":
    main()
