#!/usr/bin/env python3
"""Writes facts_change_holdout6.jsonl: a sixth, fresh HELD-OUT "facts that change" set.

Modelled on crates/eval/data/facts_change.py (same record shapes, ids, unrelated-memory pools,
topic-key exclusion and timing scheme; a different seed), with 40 English and 40 Chinese
scenarios written from scratch and without looking at any ranking rule, so a recall rule can be
measured on data nobody used while designing it. None of the statements or questions reuse or
paraphrase those of facts_change.py or facts_change_holdout{,2,3,4,5}.py, and the topics are ones
those sets do not cover (blood donation, bread, a cycling club, a daughter's brace, school
lunches, a son's phone, the spare room, council tax, supplements, a combat class, a dance class,
board game night, a camera, lunch at work, laundry, a spare key, a reading band, pet insurance,
an emergency fund, family film night, breakfast club, a child's party venue, a season ticket,
life drawing, postmortems, a no-meetings day, a type checker, commit messages, branch names, a
dependency bot, preview environments, schema migrations, a CRM, an expense tool, a learning
budget, password length, a team offsite, timesheets, TypeScript strict mode, customer login;
洗车、ETC、公积金、分班、妈妈的晨练、电费、热水器、扫地机器人、猫砂、午休、居家锻炼、篮球、听书、
下午茶、加班打车、出差地点、请假审批、RPC 框架、本地缓存、状态管理、样式方案、灰度比例、官网域名、
开放接口鉴权、提测日期、安卓外包、闲钱、压岁钱、滑雪、软考、家委会、看电视、谁做饭、期权归属、
测试环境数量、强制更新、代码扫描、记账、订花、驱虫).

Each scenario is one namespace (`h6-en-01`.., `h6-zh-01`..): 34 unrelated memories, an older
statement of a fact about the user or their work/project/family/home (`old`), a newer statement
that changes it (`new`), and a question asked after the change whose gold is `["new"]`. Newer
statements are phrased as people write to an assistant: some with explicit change words, many
without; a few mention the old value, most do not. Most questions ask about "the user"/"用户";
some are phrased otherwise ("Where is the team offsite?", "我家用的什么热水器来着？"). Categories
are `en` and `zh`.

Unrelated memories never use "user"/"用户". The pools are imported from facts_change.py (as is
the function that writes a scenario), plus a few new ones near some scenarios (a nephew's braces,
a friend's sportive, a brother's camera, a colleague's tango class, the support team's tool, a
partner who can't give blood, a sister's housing fund, a colleague who teaches skiing, a
neighbour's robot vacuum, a roommate who referees basketball, the data team's RPC, a brother's
unwashed car). A scenario names one or more topic keys; unrelated memories with any of those keys
are left out of its namespace, so no distractor states or contradicts the scenario's fact.

Deterministic (seeded):

    python3 facts_change_holdout6.py > facts_change_holdout6.jsonl

The format is `rearview_eval::load_jsonl`'s.
"""

from facts_change import EN_OTHER as TUNED_EN_OTHER, ZH_OTHER as TUNED_ZH_OTHER, write_held_out

# (topic key or keys, older statement, newer statement, question). All keys are left out of the
# distractor pool for the scenario.
EN = [
    ("blood-donation", "I give whole blood at the Tooting donor centre three times a year.", "They've asked me to switch to plasma, which is every two weeks at the Twickenham centre.", "How often does the user donate at the donor centre?"),
    ("bread", "We get a sourdough loaf from the Saturday market every week.", "I bake all our bread myself now; the new bread maker does a loaf overnight.", "Where does the user's household get its bread?"),
    ("cycling-club", "On Sunday mornings I ride with the Kingston Wheelers.", "Joined VC Meridian. Their club run leaves Roehampton Gate at 8 on Saturdays.", "Which cycling club does the user ride with?"),
    (("braces", "dentist"), "Ruby sees the orthodontist every six weeks to have her brace adjusted.", "Ruby's orthodontist is happy with her progress and only wants to see her every ten weeks.", "How often does the user's daughter have orthodontist appointments?"),
    (("school-lunch", "kids"), "The twins take packed lunches to school.", "Both twins are on school dinners this year, one less job in the mornings.", "What do the user's twins do for lunch at school?"),
    (("kid-phone", "screen"), "Noah doesn't have a phone; we said not before secondary school.", "We caved. Noah has my old iPhone, with Screen Time locked right down.", "Does the user's son have a phone?"),
    (("spare-room", "desk-home"), "The spare bedroom is my home office.", "The spare room is the nursery now, so I work from the kitchen table.", "Where does the user work from at home?"),
    ("council-tax", "Our house is in council tax band C.", "Since the extension the council has us in band D.", "Which council tax band is the user's house in?"),
    ("supplements", "Every morning I take vitamin D and a fish oil capsule.", "Dropped the fish oil. Vitamin D in the morning and magnesium before bed.", "What supplements does the user take?"),
    ("combat-class", "I do boxercise at the leisure centre on Tuesday evenings.", "Signed up for Muay Thai at a gym in Hackney, Monday and Thursday nights.", "Which combat-sports class does the user train at?"),
    ("dance-class", "My salsa class is on Wednesday nights at the community hall.", "I swapped salsa for lindy hop, Tuesdays at St Anne's church hall.", "What dance class does the user go to?"),
    ("board-games", "Board game night is at Tom's flat on Fridays.", "We host board games at ours these days, every other Saturday.", "Where does the user's board game night happen?"),
    (("camera-body", "camera"), "My main camera is a Fujifilm X-T3.", "Sold all the Fuji gear and bought a Sony A7 IV.", "What camera does the user shoot with?"),
    (("work-lunch", "takeaway"), "I bring leftovers from home for lunch at work.", "The canteen's subsidised now, so I just eat there every day.", "What does the user do for lunch at work?"),
    ("laundry", "We take our washing to the laundrette on Mill Road.", "Finally got a washer-dryer fitted in the flat!", "How does the user do their laundry?"),
    ("spare-key", "Mrs Patel at number 12 keeps our spare key.", "Spare key's in a lockbox by the back door, code 4471.", "Where can the user's spare house key be found?"),
    ("reading-band", "Isla is on the orange book band at school.", "Isla moved up to turquoise this week and she's so proud of herself.", "Which reading band is the user's daughter on?"),
    ("pet-insurance", "Biscuit is insured with Petplan.", "We moved Biscuit's cover to ManyPets; Petplan's renewal quote was outrageous.", "Which company insures the user's dog?"),
    (("savings-account", "bank"), "Our emergency fund sits in a Marcus easy-access account.", "The emergency savings are in a Chase Saver now, the rate's a lot better.", "Where does the user keep their emergency fund?"),
    ("film-night", "Friday is pizza-and-film night with the kids.", "Family film night is on Saturdays now, Fridays got too hectic with swimming lessons.", "When is the user's family film night?"),
    ("breakfast-club", "Theo goes to breakfast club at school from 7:45.", "Theo's finished with breakfast club; I drop him at the gate at 8:40 since I work from home.", "Does the user's son still go to breakfast club?"),
    ("kid-party", "Zara's eighth birthday party is booked at the trampoline park.", "The trampoline park cancelled on us, so Zara's party is at the leisure centre soft play.", "Where is Zara's birthday party?"),
    ("season-ticket", "I've got an annual season ticket into Waterloo.", "I'm on a flexi season ticket now that I only go in twice a week.", "What kind of train ticket does the user commute on?"),
    ("life-drawing", "Life drawing is Thursday evenings at the arts centre.", "Life drawing runs on Zoom these days, Monday nights.", "When is the user's life drawing class?"),
    ("postmortem", "Postmortems are due within five working days of an incident.", "Incident write-ups have to be published within 48 hours.", "How soon after an incident is the postmortem due?"),
    (("no-meeting-day", "design-review"), "Wednesdays are meeting-free for the whole engineering org.", "Our no-meetings day moved to Thursday.", "Which day is kept free of meetings?"),
    ("type-checker", "CI type-checks the Python code with mypy.", "Pyright is the type checker in CI.", "Which type checker runs in CI?"),
    ("commit-style", "Commit messages follow Conventional Commits.", "We've stopped with the feat:/fix: prefixes; one plain sentence plus the ticket number is enough.", "How should commit messages be written?"),
    ("branch-naming", "Branches are named feature/TICKET-123.", "Name branches initials/ticket-slug, e.g. mk/PAY-88-refund-emails.", "How should git branches be named?"),
    ("dep-bot", "Dependabot opens our dependency update PRs.", "Renovate handles dependency bumps, grouped into one PR every Monday.", "What opens the dependency update pull requests?"),
    ("preview-envs", "Every pull request gets its own preview deployment.", "Per-PR previews are switched off to save money; changes get checked on the shared staging box.", "Do pull requests get their own preview environment?"),
    ("migrations", "Schema migrations run through Flyway.", "We use golang-migrate for schema changes.", "What tool runs the database schema migrations?"),
    ("crm", "Sales lives in HubSpot.", "Since the enterprise push the sales team works in Salesforce.", "Which CRM does the sales team use?"),
    (("expense-tool", "expenses"), "Expense claims go through Expensify.", "We claim expenses in Pleo: snap the receipt and that's it.", "Which tool does the user file expense claims in?"),
    ("learning-budget", "Each engineer has £1,000 a year for courses and books.", "The learning budget is £1,500 per person this year.", "How much is the yearly learning budget per engineer?"),
    ("password-length", "Account passwords must be at least 8 characters.", "Sign-up enforces a 12-character minimum password.", "What's the minimum password length for accounts?"),
    ("offsite", "The team offsite is booked at a manor house in the Cotswolds.", "Offsite's in Amsterdam, the Cotswolds place double-booked us.", "Where is the team offsite?"),
    ("timesheet", "I log my hours in Harvest.", "Timesheets go into Toggl Track these days.", "Where does the user log their working hours?"),
    ("ts-strict", "TypeScript strict mode is off in the frontend.", "We flipped strict on in tsconfig across the whole frontend.", "Is strict mode enabled in the frontend's TypeScript config?"),
    (("customer-auth", "sso"), "Customer login is handled by Auth0.", "Customer sign-in moved over to Clerk.", "What handles customer login?"),
]

ZH = [
    ("car-wash", "我一般在小区门口那家洗车店办卡洗车。", "最近都去加油站的自助洗车了，十块钱自己冲一遍。", "用户平时在哪儿洗车？"),
    ("etc", "车上的 ETC 绑的是工行信用卡。", "ETC 改绑微信支付了，每次扣费都有提醒。", "用户的 ETC 绑定的是什么扣费方式？"),
    ("housing-fund", "公司的公积金是按 7% 交的。", "从这个月起公积金比例提到 12% 了，到手少了点，但划算。", "用户公司的公积金缴存比例是多少？"),
    ("class-number", "儿子在初一（3）班。", "初二重新分了班，儿子分到（7）班去了。", "用户儿子在哪个班？"),
    ("mom-hobby", "我妈每天早上去公园打太极拳。", "我妈报了老年大学的国画班，一周去三个上午。", "用户的妈妈上午通常去做什么？"),
    ("electricity-bill", "家里的电费每个月我在支付宝上手动交。", "电费已经设成银行卡自动代扣了。", "用户家的电费怎么交？"),
    ("water-heater", "家里洗澡用的是燃气热水器。", "燃气热水器拆了，换成了空气能，冬天也够用。", "我家用的什么热水器来着？"),
    ("robot-vacuum", "家里扫地靠一台石头的扫地机器人。", "石头那台坏了，新买的是追觅，能自己洗拖布。", "用户家的扫地机器人是什么牌子？"),
    ("cat-litter", "猫砂一直用的是膨润土砂。", "现在用豆腐砂，结团后能直接冲进马桶。", "用户家的猫用什么猫砂？"),
    ("nap", "我中午都在工位上趴着睡二十分钟。", "午觉不睡了，吃完饭下楼走一圈。", "用户午休时间一般做什么？"),
    ("home-workout", "我每天晚上在家跳绳一千个。", "跳绳太伤膝盖，改成每晚跟着视频跳操半小时。", "用户晚上在家做什么运动？"),
    ("basketball", "每周三晚上跟大学同学打篮球。", "篮球局挪到周日上午了，在望京那个体育馆。", "用户什么时候打篮球？"),
    ("audiobook", "通勤路上我一般听喜马拉雅。", "喜马拉雅会员没续，现在听微信读书里的有声书。", "用户通勤时用什么听书？"),
    ("afternoon-tea", "公司每周五下午发下午茶。", "行政说下午茶改到每周三发了。", "公司哪天发下午茶？"),
    ("overtime-taxi", "加班到九点以后打车可以报销。", "打车报销收紧了，得加班到十点以后才能报。", "加班到几点以后打车能报销？"),
    ("business-trip", "这个季度我每个月要去一趟郑州工厂。", "郑州的项目交接出去了，接下来每月跑一趟西安。", "用户每个月要出差去哪里？"),
    ("leave-approval", "请假要在 OA 系统上提申请。", "请假审批都挪到飞书上了，OA 只管报销。", "用户请假在哪里提申请？"),
    ("rpc", "订单服务和库存服务之间是用 Dubbo 调用的。", "订单、库存这几个服务之间的调用都改成 gRPC 了。", "订单服务和库存服务之间用什么 RPC 框架？"),
    ("local-cache", "后端的本地缓存用的是 Guava Cache。", "本地缓存全换成 Caffeine 了，命中率高一些。", "后端本地缓存用的是什么？"),
    ("state-mgmt", "前端的状态管理用的是 Vuex。", "Vuex 已经都迁到 Pinia 了。", "前端用什么做状态管理？"),
    ("css", "页面样式都是用 Less 写的。", "样式统一改用 Tailwind，新页面不许再写 Less。", "前端样式用的是什么方案？"),
    (("canary", "flags", "release"), "灰度第一批放 5% 的流量。", "上次灰度出过事故，首批流量改成 1% 了。", "灰度发布第一批放多少流量？"),
    (("site-domain", "site"), "官网域名是 xingyun.com。", "官网换到 xingyun.cn 了，.com 那个会跳转过去。", "官网的域名是什么？"),
    ("open-api-auth", "开放平台的接口用 AppKey 加签名鉴权。", "开放接口的鉴权改成 OAuth2，AppKey 签名那套下个月停用。", "开放平台接口怎么鉴权？"),
    ("test-handoff", "会员积分需求定在 6 月 20 号提测。", "积分需求排期往后挪了一周，27 号提测。", "会员积分需求哪天提测？"),
    ("android-outsource", "安卓端外包给了成都的一家公司做。", "安卓端收回来自己做了，组里新招了两个安卓开发。", "安卓端现在是谁在开发？"),
    ("idle-money", "我的闲钱都放在余额宝里。", "余额宝的钱转到银行存了三年定期。", "用户的闲钱放在哪里？"),
    ("lucky-money", "闺女的压岁钱都存在我的卡里。", "给闺女单独开了个儿童账户，压岁钱都存那里面。", "用户女儿的压岁钱存在哪儿？"),
    ("ski", "冬天我一般去崇礼滑双板。", "今年开始改学单板了，请了个教练。", "用户滑雪滑单板还是双板？"),
    ("soft-exam", "今年报了软考中级，软件设计师。", "软考改报高级了，考系统架构设计师。", "用户今年报考的是哪个软考科目？"),
    ("parent-committee", "我是儿子班上家委会的宣传委员。", "家委会改选了，我现在负责管班费。", "用户在家委会负责什么？"),
    ("tv-box", "家里看电视用的是电信的 IPTV。", "IPTV 退掉了，买了个小米盒子，想看什么直接投屏。", "用户家里用什么看电视？"),
    ("who-cooks", "家里平时是我老婆做饭。", "老婆最近加班多，晚饭都是我下厨。", "用户家的晚饭现在谁做？"),
    ("vesting", "我的期权分四年归属，每年 25%。", "公司调整了激励方案，期权改成三年归属完。", "用户的期权分几年归属？"),
    ("test-envs", "我们有三套测试环境，按分支分配。", "为了省钱，测试环境缩减到两套。", "一共有几套测试环境？"),
    ("force-update", "App 只对 3.0 以下的版本强制更新。", "强更线提到 3.5 了，低于这个版本打开就弹升级。", "App 对哪些版本强制更新？"),
    ("code-scan", "代码安全扫描用的是 SonarQube。", "安全扫描换成了 CodeQL，每个 MR 自动跑。", "代码安全扫描用的是什么工具？"),
    ("budget-app", "我用随手记记账。", "记账改成自己做的 Excel 表了，随手记广告太多。", "用户用什么记账？"),
    ("flowers", "我在花点时间订了鲜花，每周送一束。", "鲜花改成两周送一次了，一周一束插不过来。", "用户订的鲜花多久送一次？"),
    ("deworming", "团子每三个月驱一次虫。", "医生说团子常去草地，驱虫改成每个月一次。", "用户家的狗多久驱一次虫？"),
]

# Unrelated memories: (topic key, text), the tuned set's (`facts_change.py`) and some more. Some
# are near a scenario's topic on purpose (a nephew's braces, a brother's camera, a colleague who
# teaches skiing, the data team's RPC): a rule must not take them for the fact that changed.
EN_OTHER = list(TUNED_EN_OTHER)
ZH_OTHER = list(TUNED_ZH_OTHER)

EN_OTHER += [
    ("nephew-braces", "My sister's boy just had his braces taken off."),
    ("friend-sportive", "My mate Gareth rides a 100-mile sportive every June."),
    ("brother-camera", "My brother shoots weddings on a Canon R5."),
    ("neighbour-dryer", "The neighbours' tumble dryer is so loud we can hear it through the wall."),
    ("colleague-tango", "Marta from accounts teaches tango on Sunday afternoons."),
    ("support-crm", "The support team logs customer calls in Intercom."),
    ("partner-blood", "Daniel isn't allowed to give blood since his time living in Brazil."),
    ("flutter-analyzer", "The Flutter app's Dart analyzer runs with the strict rule set."),
]

ZH_OTHER += [
    ("sister-fund", "我姐她们单位的公积金是按 5% 交的。"),
    ("colleague-ski", "同事小邓是双板教练，一到冬天就泡在崇礼。"),
    ("neighbor-vacuum", "楼上邻居家的扫地机器人一大早就开始转。"),
    ("cousin-teacher", "表妹在准备教资面试。"),
    ("roommate-basketball", "大学室友老孟在业余篮球联赛里当裁判。"),
    ("data-rpc", "数据组的几个服务之间用 Thrift 调用。"),
    ("brother-carwash", "我弟的车从来不洗，全靠下雨冲。"),
]


def main():
    write_held_out(20260612, "h6", EN, ZH, EN_OTHER, ZH_OTHER)


if __name__ == "__main__":
    main()
