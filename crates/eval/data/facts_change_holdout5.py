#!/usr/bin/env python3
"""Writes facts_change_holdout5.jsonl: a fifth, fresh HELD-OUT "facts that change" set.

Modelled on crates/eval/data/facts_change.py (same record shapes, ids, unrelated-memory pools,
topic-key exclusion and timing scheme; a different seed), with 40 English and 40 Chinese
scenarios written from scratch and without looking at any ranking rule, so a recall rule can be
measured on data nobody used while designing it. None of the statements or questions reuse or
paraphrase those of facts_change.py or facts_change_holdout{,2,3,4}.py, and the topics are ones
those sets do not cover (a broadband provider, a son's guitar teacher, on-call paging, a running
route, a monthly donation, a tutor's day, a wine club, contact lenses, a home insurance excess, a
recycling centre, sprint length, feature flags, a support SLA, a bike lock, a pharmacy, a
gardener, a dog groomer, a job queue, a container registry, an API gateway, account purging,
pricing, trial length, Friday deploys, interviews, a meal allowance, a pub quiz, shoe size, an
airport, an e-reader, chess, golf, in-laws, a Dropbox plan, five-a-side, tablet time, hotels,
mentoring, staging refreshes, merge strategy; 家教、跑步路线、月捐、网盘、限行、快递柜、外卖平台、
校服尺码、零花钱、桶装水、年假、考研院校、奶粉、单元门密码、宠物洗护、乒乓球、运营商、客服系统、
电子签、监控、地图 SDK、发票抬头、住宿标准、打卡、班车、周报、加油、小饭桌、兼职、疫苗、挂牌价、
带新人、分库分表、组件库、企业邮箱、定时任务、还款日、步数、上学方式、销售区域).

Each scenario is one namespace (`h5-en-01`.., `h5-zh-01`..): 34 unrelated memories, an older
statement of a fact about the user or their work/project/family/home (`old`), a newer statement
that changes it (`new`), and a question asked after the change whose gold is `["new"]`. Newer
statements are phrased as people write to an assistant: some with explicit change words, many
without; a few mention the old value, most do not. Most questions ask about "the user"/"用户";
some are phrased otherwise ("What's our sprint length?", "我的车哪天限行？"). Categories are `en`
and `zh`.

Unrelated memories never use "user"/"用户". The pools are imported from facts_change.py (as is
the function that writes a scenario), plus a few new ones near some scenarios (a partner's
glasses, a sister's internet, a friend's wine bar, a brother's golf handicap, a colleague's trail
runs, a mother's book donations, a niece's formula, a colleague's graduates). A scenario names
one or more topic keys; unrelated memories with any of those keys are left out of its namespace,
so no distractor states or contradicts the scenario's fact.

Deterministic (seeded):

    python3 facts_change_holdout5.py > facts_change_holdout5.jsonl

The format is `rearview_eval::load_jsonl`'s.
"""

from facts_change import EN_OTHER as TUNED_EN_OTHER, ZH_OTHER as TUNED_ZH_OTHER, write_held_out

# (topic key or keys, older statement, newer statement, question). All keys are left out of the
# distractor pool for the scenario.
EN = [
    ("broadband", "Our home internet is BT fibre, the 150 Mb package.", "We're with Hyperoptic at home these days; full-fibre gigabit for less than BT charged.", "Which broadband provider does the user have at home?"),
    ("guitar-teacher", "Leo has guitar with Mr Dawson after school on Wednesdays.", "Leo's guitar teacher is Anouk now, she comes to the house.", "Who teaches the user's son guitar?"),
    ("paging", "When something breaks at night, PagerDuty is what wakes us up.", "Our pages come from incident.io; it handles the rota and the phone calls.", "Which tool pages the on-call engineer?"),
    ("run-route", "My usual run is three laps of Victoria Park.", "Most mornings I head down the canal towpath to Limehouse Basin and back.", "Where does the user usually go running?"),
    ("charity", "I've got a £15 direct debit to Shelter every month.", "My monthly donation goes to the RNLI instead.", "Which charity does the user give to each month?"),
    ("tutor-day", "Portuguese with Beatriz is on Tuesday evenings over video.", "Beatriz and I meet Fridays at 12:30 for Portuguese, she took on evening classes at a college.", "When is the user's Portuguese lesson?"),
    ("wine-club", "I'm a Naked Wines Angel, a mixed case every couple of months.", "Joined The Wine Society and cancelled the Naked Wines subscription.", "Which wine club does the user belong to?"),
    ("contact-lenses", "I wear Acuvue Oasys, the two-weekly ones.", "Optician put me into Dailies Total1, a fresh pair every morning.", "Which contact lenses does the user wear?"),
    ("home-insurance", "Our buildings and contents policy has a £250 excess.", "Renewed with Aviva at a £500 excess to keep the premium under control.", "How much is the excess on the user's home insurance?"),
    ("tip", "Garden waste and old furniture go to the Cowley Road tip.", "Cowley's booking-only and never has slots, so I drive out to the Redbridge recycling centre.", "Which recycling centre do I take stuff to?"),
    (("sprint-length", "sprint", "retro"), "We work in three-week sprints.", "One-week sprints from this quarter, leadership wants faster feedback.", "What's our sprint length?"),
    (("feature-flags", "flags"), "Our feature flags are just booleans in a YAML file in the repo.", "Every feature flag lives in a self-hosted Unleash instance.", "Where are the team's feature flags managed?"),
    (("support-sla", "sla", "triage"), "We promise a first reply to support emails within one working day.", "Support's first-response target is four business hours for every ticket.", "What first-response time does support commit to?"),
    ("bike-lock", "My bike just has a cable lock, which I know is asking for trouble.", "Bought a Kryptonite New York D-lock and a chain for the back wheel.", "How does the user lock their bike?"),
    ("pharmacy", "I pick up my repeat prescriptions from Boots on the high street.", "Repeat prescriptions come by post from Pharmacy2U.", "Which pharmacy fills the user's repeat prescriptions?"),
    ("gardener", "A chap called Pete mows the lawn and does the hedges for us.", "Green Thumb Landscapes look after the garden, fortnightly visits.", "Who looks after my garden?"),
    ("dog-groomer", "Biscuit gets groomed at Paws & Claws in town every eight weeks.", "A mobile groomer in a van does Biscuit on the drive now, so much less stress for him.", "Where does the user's dog get groomed?"),
    ("job-queue", "Background jobs go through Celery with RabbitMQ as the broker.", "We rebuilt background processing on Temporal workflows; Celery's gone.", "What runs the background jobs?"),
    ("registry", "CI pushes our images to Docker Hub.", "Images go to GitHub Container Registry after all the pull rate-limit headaches.", "Which container registry does CI push images to?"),
    ("api-gateway", "Kong sits in front of all the public APIs.", "Public API traffic goes through Envoy Gateway.", "What is the API gateway in front of the public APIs?"),
    ("account-purge", "Inactive accounts are deleted after two years.", "Under the new data policy we purge accounts after 12 months of inactivity.", "How long before an inactive account is deleted?"),
    ("team-price", "The Team plan is $12 per seat per month.", "New pricing is live: Team is $15 a seat a month.", "How much does the Team plan cost per seat?"),
    ("trial-length", "New sign-ups get a 30-day free trial.", "Growth cut the trial to 14 days; conversion held steady and fewer people forgot about us.", "How long is the free trial?"),
    ("friday-deploys", "Rule of the house: no production deploys on Fridays.", "With canary releases in place, Friday deploys are back on the table.", "Can we deploy to production on a Friday?"),
    ("interview", "Engineering candidates do a four-hour take-home exercise.", "We dropped the take-home; candidates do a 90-minute pairing session with two of us.", "What technical exercise do engineering candidates do?"),
    ("meal-allowance", "On work trips we can claim up to £30 a day for food.", "The travel policy allows £45 a day for meals.", "How much can the user claim per day for meals on a work trip?"),
    ("pub-quiz", "Our quiz team plays at the Red Lion on Tuesday nights.", "We've taken the quiz team to the Fox & Hounds, Sunday evenings.", "Where does the user's quiz team play?"),
    ("shoe-size", "Ollie takes a size 11 in kids' shoes.", "Ollie's feet have shot up again, he's a 13.", "What shoe size is the user's son?"),
    ("home-airport", "I always fly from Gatwick, it's 25 minutes away.", "Heathrow is my airport these days, the Elizabeth line goes straight there.", "Which airport does the user usually fly from?"),
    ("e-reader", "I read on a Kindle Paperwhite.", "Got a Kobo Libra Colour so I can borrow library ebooks without fuss.", "What e-reader does the user read on?"),
    ("chess", "My Lichess rapid rating hovers around 1450.", "Finally crossed 1600 in rapid on Lichess!", "What is the user's Lichess rapid rating?"),
    ("golf", "I play off 18.", "The handicap's down to 14 after a good summer.", "What's the user's golf handicap?"),
    ("in-laws", "We drive to my in-laws in Cardiff every other weekend.", "We see the in-laws once a month now, the M4 roadworks were killing us.", "How often does the user visit their in-laws?"),
    ("dropbox", "I'm on Dropbox Plus, 2 TB.", "Upgraded Dropbox to Essentials for the 3 TB and the file-request tools.", "Which Dropbox plan does the user have?"),
    ("five-a-side", "Five-a-side is Monday nights at the leisure centre.", "We play five-a-side at Powerleague on Thursday evenings.", "When does the user play five-a-side?"),
    ("tablet-time", "The kids get an hour on the iPad after school.", "No iPads on school days any more, weekends only.", "How much tablet time do the user's kids get on school days?"),
    ("hotel", "Book me into Premier Inns when I travel for work.", "I'd rather stay at Hilton properties for work trips, I'm chasing Diamond status.", "Which hotel chain should the user be booked into for work trips?"),
    ("mentoring", "I'm mentoring two juniors, Amira and Jake.", "Jake rolled off to another team, so Amira is the only person I'm mentoring.", "Who is the user mentoring?"),
    ("staging-refresh", "Staging gets a fresh anonymised copy of production every Sunday.", "Staging is reloaded from an anonymised prod snapshot every night at 3am.", "How often is staging refreshed with production data?"),
    ("merge-strategy", "We squash-merge every pull request.", "PRs are rebase-merged so the individual commits show up in main.", "How are pull requests merged into main?"),
]

ZH = [
    ("math-tutor", "儿子的数学家教是师大的研究生小孟，每周六上午来。", "小孟毕业回老家了，现在请的是退休的郑老师，一周来两次。", "用户儿子的数学家教是谁？"),
    ("run-route", "我平时都在奥森南园跑步，一圈五公里。", "最近都沿着亮马河跑，出门就是，不用开车过去。", "用户平时在哪儿跑步？"),
    ("charity", "我每个月给壹基金捐 100 块。", "月捐转到免费午餐了，想帮山区孩子吃上口热饭。", "用户每月的捐款捐给哪个项目？"),
    ("netdisk", "工作资料都存在百度网盘上，开的超级会员。", "资料现在都放阿里云盘，百度那个会员到期没续。", "用户现在用哪个网盘存资料？"),
    ("plate-limit", "我的车尾号是 3，每周二限行。", "限行尾号轮换了，我这车现在周四限行。", "我的车哪天限行？"),
    ("parcel", "快递都放小区门口的菜鸟驿站，下班顺路去取。", "跟快递员说好了，以后都放 5 号楼下的丰巢柜。", "用户的快递一般放在哪里？"),
    ("delivery-app", "点外卖我一般用美团。", "外卖现在基本都在淘宝闪购上点，红包给得多。", "用户点外卖用哪个平台？"),
    ("uniform-size", "闺女的校服买的是 140 码。", "才半年又长高一截，校服得换 150 的了。", "用户女儿的校服穿多大码？"),
    ("pocket-money", "儿子的零花钱是一周 20 块。", "期中考得不错，零花钱给他涨到了每周 30。", "用户儿子每周零花钱多少？"),
    ("drinking-water", "家里喝水是楼下水站送的农夫山泉桶装水。", "厨房装了台净水器，桶装水就不订了。", "用户家平时喝的水是哪来的？"),
    ("annual-leave", "我今年一共 10 天年假。", "HR 说我工龄满十年了，今年年假按 15 天算。", "用户今年有几天年假？"),
    ("grad-school", "考研目标是北师大的教育学。", "掂量了一下分数线，目标院校改成华东师大了，专业不变。", "用户考研的目标院校是哪所？"),
    (("formula", "kids"), "小宝喝的是飞鹤星飞帆。", "星飞帆喝了老便秘，换成爱他美了。", "用户家小宝喝什么奶粉？"),
    ("door-code", "单元门密码是 1357#。", "物业把单元门密码改成 8642# 了。", "单元门的密码是多少？"),
    ("pet-bath", "团子每个月去楼下宠物店洗一次澡。", "团子现在约的是上门洗护，师傅开车过来在车里洗。", "用户家的狗在哪儿洗澡？"),
    ("table-tennis", "我每周六下午在区体育馆打乒乓球。", "乒乓球挪到单位活动室打了，每周三中午。", "用户什么时候打乒乓球？"),
    ("carrier", "我的手机号是移动的。", "携号转网到联通了，套餐便宜一半。", "用户的手机号现在是哪家运营商的？"),
    ("cs-system", "在线客服系统用的是美洽。", "客服后台已经换到智齿了，工单和机器人都在上面。", "在线客服用的是哪个系统？"),
    ("esign", "合同电子签走的是法大大。", "电子合同现在都在 e签宝 上签。", "公司的电子合同用哪个平台签？"),
    ("monitoring", "服务器监控用的是 Zabbix。", "监控全面切到 Prometheus 加 Grafana 了，Zabbix 已下线。", "服务器监控用的是什么？"),
    ("map-sdk", "App 里的地图接的是高德 SDK。", "地图 SDK 换成腾讯地图了，商用授权便宜不少。", "App 的地图用的是哪家的 SDK？"),
    ("invoice-title", "开发票抬头写“杭州星河科技有限公司”。", "公司完成更名，发票抬头请写“杭州星河智能科技有限公司”，税号不变。", "开发票的抬头应该写什么？"),
    ("hotel-cap", "出差住宿标准是一晚 400 以内。", "新的差旅制度下来了，一线城市住宿一晚可以报 600。", "用户出差去一线城市住酒店一晚能报多少？"),
    ("clock-in", "公司上下班在钉钉上打卡。", "打卡改成刷脸了，门口装了考勤机。", "用户公司怎么打卡？"),
    ("shuttle", "公司班车早上 7 点 50 从地铁站发车。", "班车时间往后挪了，8 点 10 分发车。", "公司班车早上几点从地铁站发车？"),
    (("my-weekly", "weekly-report"), "我的周报每周五下班前交给领导。", "周报改成周日晚上交，周一一早领导要看。", "用户的周报什么时候交？"),
    ("gas-station", "加油一般去中石化，办了张加油卡。", "最近都去中石油加，App 上老有满减券。", "我一般去哪儿加油来着？"),
    ("after-school", "儿子放学后去学校边上的小饭桌，写完作业我再去接。", "小饭桌不去了，他奶奶搬过来住，放学直接接回家。", "用户儿子放学后去哪儿？"),
    ("side-job", "周末在培训机构代两节数学课。", "代课辞了，周末接点英文翻译的活儿。", "用户周末做什么兼职？"),
    (("vaccine", "kids"), "小宝下一针五联约的是 6 月 3 号。", "社区医院说五联到货晚，疫苗改约到 6 月 17 号了。", "用户家小宝下一针疫苗哪天打？"),
    ("listing-price", "房子在链家挂牌 320 万。", "挂牌价降到 295 万了，中介说现在行情不好。", "用户的房子挂牌价是多少？"),
    ("mentee", "组里新来的小罗是我在带。", "小罗转正后能独立干活了，我现在带的是刚入职的小唐。", "用户现在在带哪个新人？"),
    ("sharding", "订单库用 ShardingSphere 做分库分表。", "订单数据都迁进 TiDB 了，分库分表那一套拆掉了。", "订单库现在用什么方案存储？"),
    ("ui-lib", "管理后台的页面是用 Element UI 搭的。", "后台页面都换成 Ant Design 了。", "管理后台用的是哪个组件库？"),
    ("corp-mail", "公司邮箱用的是网易企业邮。", "企业邮箱迁到腾讯企业邮了，地址后缀不变。", "公司的企业邮箱是哪家的？"),
    ("scheduler", "定时任务都跑在 XXL-JOB 上。", "定时任务统一迁到 K8s 的 CronJob 了。", "定时任务用什么调度？"),
    ("card-due", "信用卡每月 5 号还款。", "打电话把还款日改到每月 20 号了，正好在发工资之后。", "用户的信用卡每月几号还款？"),
    ("steps", "我给自己定的目标是每天走一万步。", "膝盖不太舒服，每天步数目标降到八千。", "用户每天的步数目标是多少？"),
    ("school-commute", "闺女每天坐校车上学。", "校车线路撤了，现在我每天骑电动车送她。", "用户的女儿怎么去上学？"),
    ("sales-region", "我负责华东区的销售。", "年后调整了分工，我现在管华南区。", "用户负责哪个区域的销售？"),
]

# Unrelated memories: (topic key, text), the tuned set's (`facts_change.py`) and some more. Some
# are near a scenario's topic on purpose (a partner's glasses, a sister's internet, a friend's wine
# bar, a brother's golf handicap, a colleague's trail runs, a niece's formula): a rule must not
# take them for the fact that changed.
EN_OTHER = list(TUNED_EN_OTHER)
ZH_OTHER = list(TUNED_ZH_OTHER)

EN_OTHER += [
    ("partner-glasses", "Daniel only wears glasses for driving at night."),
    ("sister-internet", "My sister's internet in Munich drops out every time it rains."),
    ("friend-wine", "My friend Harriet runs a tiny wine bar in Bath."),
    ("brother-golf", "My brother plays off a handicap of 9 and never lets me forget it."),
    ("partner-charity", "Daniel does a sponsored bike ride for the local hospice every summer."),
    ("neighbour-garden", "The neighbours paved over their front garden for a second car."),
    ("enterprise-pilot", "Enterprise prospects get a custom pilot agreed with sales."),
    ("ios-builds", "The iOS builds run on Xcode Cloud."),
]

ZH_OTHER += [
    ("friend-run", "同事老周每个周末都去跑越野。"),
    ("mom-charity", "我妈每年都给老家的小学捐些图书。"),
    ("brother-plate", "我哥的车挂的外地牌，进城还得办通行证。"),
    ("colleague-mentor", "隔壁组的老杨最近在带两个应届生。"),
    ("niece-milk", "外甥女喝的是羊奶粉。"),
    ("ops-screen", "运维监控大屏挂在三楼会议室门口。"),
    ("neighbor-parcel", "隔壁老王的快递老被送到我们家门口。"),
    ("cousin-exam", "表弟今年也考研，报的是法硕。"),
]


def main():
    write_held_out(20260530, "h5", EN, ZH, EN_OTHER, ZH_OTHER)


if __name__ == "__main__":
    main()
