#!/usr/bin/env python3
"""Writes facts_change_holdout3.jsonl: a third, fresh HELD-OUT "facts that change" set.

Modelled on crates/eval/data/facts_change.py (same record shapes, ids, unrelated-memory pools,
topic-key exclusion and timing scheme; a different seed), with 40 English and 40 Chinese
scenarios written from scratch and without looking at any ranking rule, so a recall rule can be
measured on data nobody used while designing it. None of the statements or questions reuse or
paraphrase those of facts_change.py, facts_change_holdout.py or facts_change_holdout2.py, and the
topics lean towards things those sets do not cover (insurance, appointments, a relative's
address, gear, licences, cloud regions, key rotation, meeting rooms, language levels, sleep,
children's activities, carriers, tax advisers, restaurants, allergies, visas, ...).

Each scenario is one namespace (`h3-en-01`.., `h3-zh-01`..): 34 unrelated memories, an older
statement of a fact about the user or their work/project/family/home (`old`), a newer statement
that changes it (`new`), and a question asked after the change whose gold is `["new"]`. Newer
statements are phrased as people write to an assistant: some with explicit change words, many
without; a few mention the old value, most do not. Categories are `en` and `zh`.

Unrelated memories never use "user"/"用户". The pools are imported from facts_change.py (as is
the function that writes a scenario), plus a few new ones near some scenarios (an aunt's town,
a partner's running shoes, the staging region, another tool's seat count). A scenario names one
or more topic keys; unrelated memories with any of those keys are left out of its namespace, so
no distractor states or contradicts the scenario's fact.

Deterministic (seeded):

    python3 facts_change_holdout3.py > facts_change_holdout3.jsonl

The format is `rearview_eval::load_jsonl`'s.
"""

from facts_change import EN_OTHER as TUNED_EN_OTHER, ZH_OTHER as TUNED_ZH_OTHER, write_held_out

# (topic key or keys, older statement, newer statement, question). All keys are left out of the
# distractor pool for the scenario.
EN = [
    ("health-insurance", "My health insurance is with Bupa through work.", "Work moved everyone onto Vitality health cover in January.", "Which insurer covers the user's health?"),
    (("nursery", "kids", "son"), "Our youngest, Freddie, goes to Little Acorns nursery three days a week.", "Freddie started reception at St Jude's Primary this September and loves it.", "Where does the user's youngest child go on weekdays?"),
    ("dermatology", "Dermatology appointment: 3 March, 10:40, at the Royal Free.", "The hospital rang. Dermatology is on the 19th now, same time.", "When is the user's dermatology appointment?"),
    ("grandma", "Grandma lives at 8 Orchard Close, Kettering.", "Grandma's in sheltered housing now: Flat 2, Willow Court, Northampton NN3 6AB.", "Where should a birthday card for the user's grandmother be posted?"),
    ("running-shoes", "I do all my running in Nike Pegasus.", "My shins are finally happy since I started running in Hoka Cliftons.", "Which running shoes does the user wear?"),
    ("long-run", "My Sunday long run is about 10k.", "Did 18 km on Sunday, which is my regular long run now that half-marathon training has started.", "How far is the user's usual Sunday run?"),
    ("jetbrains", "We have 25 seats on the JetBrains All Products licence.", "Bought another 15 JetBrains seats for the new starters, so 40 in total.", "How many JetBrains licence seats does the team have?"),
    (("db-region", "region", "lb"), "The primary Postgres instance is in us-east-1.", "After the outage we promoted the replica in us-west-2 and made it the primary for good.", "Which AWS region hosts the primary database?"),
    (("stripe-keys", "secrets"), "The next Stripe API key rotation is due on 1 May.", "Rotated the Stripe keys early because of the leaked .env scare; next rotation is 1 August.", "When are the Stripe API keys next due to be rotated?"),
    (("planning-room", "quiet"), "Sprint planning is always in the Kestrel room.", "Planning's in Osprey on the 4th floor from now on, Kestrel has been taken over for interviews.", "Which meeting room should be booked for sprint planning?"),
    (("italian", "spoken"), "My Italian is somewhere around A2.", "Passed the B1 CELI exam!", "What level is the user's Italian at?"),
    (("sleep-hours", "sleep", "hours", "screen"), "I'm only getting about five hours of sleep a night.", "Eight hours a night for two weeks straight since I started leaving my phone in the kitchen.", "How much sleep is the user getting these days?"),
    (("daughter-activity", "son", "kids"), "Maya does ballet on Thursdays after school.", "Maya quit ballet. She's doing gymnastics on Tuesdays at 5 instead.", "What after-school activity does the user's daughter do?"),
    ("carrier", "Shop orders ship with Royal Mail Tracked 48.", "Every order goes out with DPD since Royal Mail lost three parcels in one week.", "Which carrier delivers the shop's orders?"),
    ("credit-card", "I put everything on my Amex Gold.", "Cancelled the Amex, the annual fee wasn't worth it. Barclaycard for everything.", "Which credit card does the user pay with?"),
    ("accountant", "Hannah Price at Price & Co does our tax returns.", "We've gone with Rob Ellis at Ellis Tax this year; Hannah retired.", "Who is the user's tax adviser?"),
    (("date-night", "cuisine", "takeaway"), "Date night is usually at Dishoom in King's Cross.", "Padella has become our date-night place, we're there most Fridays.", "Where should a date-night table be booked for the user?"),
    ("allergy", "No allergies that I know of.", "Found out the hard way that I'm allergic to penicillin. Came out in hives all over.", "Is the user allergic to any medication?"),
    ("visa", "I'm in the UK on a Skilled Worker visa.", "ILR approved this morning!!", "What is the user's immigration status in the UK?"),
    ("energy", "British Gas supplies our gas and electricity.", "Octopus is our energy supplier as of last month.", "Which company supplies energy to the user's home?"),
    ("laptop", "My work laptop is a ThinkPad X1 Carbon.", "IT finally gave me a 14-inch MacBook Pro.", "What laptop does the user work on?"),
    ("payroll", "Payroll runs on the 25th of each month.", "Starting next month, staff get paid on the last working day.", "When does payroll run?"),
    ("linter", "We lint the Python code with flake8 and format it with Black.", "Ruff does our linting and formatting; flake8 and Black are gone from the repo.", "What does the team lint its Python code with?"),
    ("pkg-manager", "The monorepo uses Yarn 1.", "Monorepo's on pnpm workspaces since the build rewrite.", "Which package manager does the monorepo use?"),
    (("parental-leave", "kids"), "I'm on parental leave until 3 March.", "HR approved my extension, so I'm back at work on 14 April.", "When does the user return from parental leave?"),
    ("surname", "My surname is Novak.", "Please use Novak-Hill as my surname on anything official now that we're married.", "What surname should go on the user's forms?"),
    (("deposit-savings", "trip"), "I'm putting £300 a month towards a house deposit.", "With the pay rise I've upped the deposit savings to £500 a month.", "How much does the user save each month for the house deposit?"),
    ("photos", "Family photos back up to Google Photos.", "All our photos sync to iCloud; I let the Google One plan lapse.", "Where are the user's family photos backed up?"),
    ("one-on-one", "I have a 1:1 with my manager every other week.", "My manager wants weekly 1:1s while I settle into the lead role.", "How often does the user meet their manager one-on-one?"),
    ("tls", "Our TLS certificates are bought from DigiCert and renewed by hand.", "cert-manager issues Let's Encrypt certs for everything and renews them automatically.", "Where do the company's TLS certificates come from?"),
    ("pool-size", "The Postgres connection pool is capped at 20.", "Raised the pool to 50 connections to stop the checkout timeouts.", "What's the maximum size of the Postgres connection pool?"),
    (("release-cadence", "notes"), "We ship the iOS and Android apps every two weeks.", "App releases go out every Wednesday.", "How often are the mobile apps released?"),
    ("dog-walker", "Biscuit's walker comes at noon on weekdays.", "The walker can only make 3 pm since her school run changed.", "What time does the dog walker come?"),
    ("airline", "Book me on British Airways when you can, I collect Avios.", "I've moved my status over to Virgin Atlantic, so prefer them.", "Which airline should the user's flights be booked with?"),
    (("book-club", "book"), "Book club meets on the first Monday of every month.", "Book club is the last Sunday of the month, at Sam's flat.", "When does the user's book club meet?"),
    (("heating", "apartment"), "The house is heated by an oil boiler.", "Heat pump's in and the oil tank has been taken away.", "How is the user's house heated?"),
    ("falcon-lead", "Marcus leads Project Falcon.", "Dana Whitfield took over Falcon when Marcus went on sabbatical.", "Who is leading Project Falcon?"),
    ("therapy", "I see my therapist in person on Monday evenings.", "Therapy is every other Thursday over video.", "When are the user's therapy sessions?"),
    ("embeddings", "Search embeddings come from OpenAI's text-embedding-ada-002.", "We re-embedded the whole corpus with text-embedding-3-small last week.", "Which embedding model does search use?"),
    ("groceries", "Ocado delivers our food shop on Saturday mornings.", "Groceries come from Tesco on Thursday evenings these days.", "Which supermarket delivers the user's groceries?"),
]

ZH = [
    ("medical-insurance", "我那份百万医疗险是去年在众安上投的。", "今年医疗险续的是平安好医保，众安那份到期就没管了。", "用户的百万医疗险现在在哪家？"),
    (("kindergarten", "son", "kids", "weekend"), "儿子在小区里的蓝天幼儿园上中班。", "孩子转去市直机关幼儿园了，离他奶奶家近，接送方便。", "用户的儿子在哪个幼儿园？"),
    ("checkup", "甲状腺复查约在 3 月 12 号上午。", "医院发短信说专家停诊，复查挪到 19 号下午了。", "用户的甲状腺复查是哪天？"),
    ("grandma", "我姥姥住在沈阳铁西区兴华街。", "姥姥搬到大连我舅家去住了，在甘井子区。", "给用户的姥姥寄年货，应该寄到哪个城市？"),
    ("watch", "我跑步戴的是佳明 245。", "入了块高驰 Pace 3，续航比之前那块强太多。", "用户跑步用的是什么运动手表？"),
    ("mileage", "我现在一周跑 20 公里左右。", "在备战厦马，周跑量拉到 50 公里了。", "用户现在每周大概跑多少公里？"),
    ("office-license", "公司电脑装的是 Office 2019 永久版。", "公司统一开通了 Microsoft 365，每人一个账号。", "公司电脑用的是哪种 Office？"),
    (("oss-region", "region"), "对象存储的 bucket 建在华北 2（北京）。", "bucket 迁到华南 1（深圳）了，华南的客户访问快多了。", "对象存储的 bucket 目前在哪个地域？"),
    (("ak-rotation", "secrets"), "短信平台的 AccessKey 下次轮换是 6 月 30 号。", "AK 提前换过了，下次轮换排到 9 月 30 号。", "短信平台的 AccessKey 下次什么时候换？"),
    (("meeting-room", "quiet"), "周例会固定在 3 楼黄山会议室。", "黄山会议室在装修，例会以后都在 5 楼泰山厅开。", "周例会在哪个会议室开？"),
    (("japanese", "spoken"), "我日语现在大概 N3 水平。", "N2 过了！分数还挺高。", "用户的日语是什么水平？"),
    (("sleep-hours", "sleep", "hours"), "最近天天倒班，一天只能睡五个小时。", "调到白班岗位了，每天能睡七八个小时。", "用户现在每天能睡几个小时？"),
    (("daughter-class", "kids", "weekend"), "闺女周六上午学拉丁舞。", "闺女自己吵着要学围棋，报了周日下午的班，拉丁舞就停了。", "用户的女儿现在上什么兴趣班？"),
    ("stock-warehouse", "网店的货都放在嘉兴的云仓。", "仓库整体搬到昆山了，发货能快半天。", "网店的货现在放在哪个仓？"),
    ("credit-card", "我平时主刷招行的经典白。", "招行那张销户了，现在主要刷中信颜卡。", "用户日常刷哪张信用卡？"),
    ("bookkeeping", "公司的账交给一家代账公司在做。", "代账公司不续了，招了个专职会计小吴。", "公司的账现在是谁在做？"),
    (("family-restaurant", "cuisine", "takeaway"), "家里聚餐最常去楼下那家西贝。", "最近一家人都爱上巷子里那家潮汕砂锅粥，隔三岔五就去。", "用户一家聚餐常去哪家店？"),
    ("allergy", "我没什么过敏的东西。", "查了过敏原，尘螨和猫毛都是阳性。", "用户对什么过敏？"),
    ("us-visa", "美签面试完被 check 了，还在行政审查。", "等了两个月终于 clear 了，护照昨天寄回来，签证已经下来了。", "用户的美签现在是什么状态？"),
    ("gas", "家里做饭用的是液化气罐。", "小区通上天然气了，煤气罐已经退掉。", "用户家做饭烧的是什么气？"),
    ("laptop", "工作电脑是公司配的戴尔 Latitude。", "行政给我换了台 MacBook Pro。", "用户上班用的什么电脑？"),
    ("payday", "我们公司每月 10 号发工资。", "财务通知从下个月起改成 15 号发薪。", "用户每月几号发工资？"),
    ("lint", "前端代码检查用的是 ESLint 加 Prettier。", "lint 和格式化都交给 Biome 了。", "前端用什么工具做代码检查？"),
    ("py-deps", "Python 项目用 pip 和 requirements.txt 管依赖。", "Python 依赖现在统一用 uv 管，装包快多了。", "Python 项目的依赖用什么工具管理？"),
    (("maternity", "kids"), "我的产假休到 4 月 20 号。", "领导批了，产假延到 5 月底。", "用户什么时候休完产假回来上班？"),
    ("social-insurance", "我的社保一直在苏州交。", "社保已经转到上海了。", "用户的社保在哪个城市缴？"),
    ("edu-fund", "我每个月给孩子存 1000 块教育金。", "工资涨了，孩子的教育金提到每月 2000。", "用户每个月给孩子存多少教育金？"),
    ("broker", "我的股票账户开在华泰证券。", "转户到东方财富了，佣金低一点。", "用户在哪家券商炒股？"),
    ("one-on-one", "我和主管两周做一次一对一。", "主管说以后每周都跟我聊一次。", "用户多久和主管一对一沟通一次？"),
    ("log-platform", "线上日志都在 ELK 里查。", "ELK 下线了，日志统一接到了阿里云 SLS。", "要查线上日志该去哪个平台？"),
    (("release-window", "release"), "我们每周二晚上发版。", "发版窗口调到每周三下午了，晚上出问题没人兜底。", "团队固定什么时间发版？"),
    ("pay-lead", "支付中台项目是老刘牵头。", "老刘调去海外事业部了，支付中台现在归苏晴管。", "支付中台项目的负责人是谁？"),
    ("therapy", "我每周四晚上去医院做针灸。", "针灸疗程做完了，医生让改成每周日上午推拿一次。", "用户每周去做什么理疗？"),
    ("server-spec", "线上机器都是 8 核 16G 的配置。", "生产机器统一升配到 16 核 32G 了。", "生产服务器是什么配置？"),
    ("groceries", "家里买菜基本都在盒马上下单。", "最近买菜全在朴朴上，半小时就送到。", "用户现在在哪个平台买菜？"),
    ("ev-charging", "我的电车平时去小区外面的公共桩充。", "车位上的私人充电桩装好了。", "用户的电车平时在哪里充电？"),
    ("game", "我最近天天在玩原神。", "原神退坑了，这阵子下班就打黑神话。", "用户最近在玩什么游戏？"),
    ("lease", "房子的租约到明年 3 月。", "跟房东续签了两年，租到 2027 年 3 月。", "用户的租约什么时候到期？"),
    ("head-teacher", "儿子的班主任是教数学的孙老师。", "开学换班主任了，现在是语文林老师。", "用户儿子的班主任是哪位？"),
    ("llm", "我们产品里调用的大模型是 GPT-4o。", "大模型接口切到 DeepSeek 了，成本降了一大截。", "产品目前调的是哪家的大模型？"),
]

# Unrelated memories: (topic key, text), the tuned set's (`facts_change.py`) and some more. Some
# are near a scenario's topic on purpose (an aunt's town, the staging region, another tool's
# seats, a partner's running shoes): a rule must not take them for the fact that changed.
EN_OTHER = list(TUNED_EN_OTHER)
ZH_OTHER = list(TUNED_ZH_OTHER)

EN_OTHER += [
    ("aunt", "My aunt Rosa lives in a bungalow outside Derby."),
    ("partner-shoes", "Daniel swears by his Asics for trail running."),
    ("staging-region", "The staging environment runs in eu-central-1."),
    ("figma-seats", "We pay for 12 Figma editor seats."),
    ("friend-restaurant", "My friend Kemi runs a dumpling bar in Peckham."),
    ("nephew", "My nephew has swimming lessons on Saturday mornings."),
    ("returns", "Customer returns come back through Evri drop-off points."),
    ("flatmate", "My flatmate is on a Graduate visa until next summer."),
    ("replica-conns", "The analytics replica allows up to 100 connections."),
]

ZH_OTHER += [
    ("aunt", "我小姨一家在鞍山开超市。"),
    ("cousin-insurance", "我表姐在太平洋保险做核保。"),
    ("nephew-class", "外甥每周三晚上学编程。"),
    ("husband-watch", "我老公戴的是华为 GT4。"),
    ("test-bucket", "测试环境的 bucket 放在华东 1（杭州）。"),
    ("colleague-leave", "同事小林下个月开始休婚假。"),
    ("father-broker", "我爸炒股二十多年了，一直用同花顺看盘。"),
]


def main():
    write_held_out(20260307, "h3", EN, ZH, EN_OTHER, ZH_OTHER)


if __name__ == "__main__":
    main()
