#!/usr/bin/env python3
"""Writes facts_change_holdout4.jsonl: a fourth, fresh HELD-OUT "facts that change" set.

Modelled on crates/eval/data/facts_change.py (same record shapes, ids, unrelated-memory pools,
topic-key exclusion and timing scheme; a different seed), with 40 English and 40 Chinese
scenarios written from scratch and without looking at any ranking rule, so a recall rule can be
measured on data nobody used while designing it. None of the statements or questions reuse or
paraphrase those of facts_change.py, facts_change_holdout.py, facts_change_holdout2.py or
facts_change_holdout3.py, and the topics are ones those sets do not cover (a dental practice, a
library, a parking space, a podcast, a colleague's timezone, monitors, a café, a cloud spending
cap, term dates, seat preferences, a barber, bin day, VPNs, analytics, search, test runners,
coverage gates, API versions, a product's name, a babysitter, Christmas plans, a cat's food,
meal kits, a car's garage, keyboards, alert channels, code owners, scheduled jobs, hiring,
desks, volunteering, input methods, a building manager, health checks, ...).

Each scenario is one namespace (`h4-en-01`.., `h4-zh-01`..): 34 unrelated memories, an older
statement of a fact about the user or their work/project/family/home (`old`), a newer statement
that changes it (`new`), and a question asked after the change whose gold is `["new"]`. Newer
statements are phrased as people write to an assistant: some with explicit change words, many
without; a few mention the old value, most do not. Most questions ask about "the user"/"用户";
some are phrased otherwise ("When is the sprint demo?", "我的牙医是哪位？"). Categories are `en`
and `zh`.

Unrelated memories never use "user"/"用户". The pools are imported from facts_change.py (as is
the function that writes a scenario), plus a few new ones near some scenarios (a partner's
dentist, a brother's parking space, a friend's podcast, the ML team's GPU budget, a niece's
school, a dog's food, another scheduled job). A scenario names one or more topic keys; unrelated
memories with any of those keys are left out of its namespace, so no distractor states or
contradicts the scenario's fact.

Deterministic (seeded):

    python3 facts_change_holdout4.py > facts_change_holdout4.jsonl

The format is `rearview_eval::load_jsonl`'s.
"""

from facts_change import EN_OTHER as TUNED_EN_OTHER, ZH_OTHER as TUNED_ZH_OTHER, write_held_out

# (topic key or keys, older statement, newer statement, question). All keys are left out of the
# distractor pool for the scenario.
EN = [
    (("dental-practice", "dentist"), "I see Dr. Harlow at Bridge Street Dental for check-ups.", "Registered with Smile Studio on Kings Road, since Bridge Street went private-only.", "Which dental practice is the user registered with?"),
    ("library", "My library card is for the Canterbury branch, I pop in most Saturdays.", "I mostly borrow from Whitstable library these days, it's a five-minute walk.", "Which library does the user usually borrow books from?"),
    ("parking-spot", "My parking space at the office is B14, down in the basement.", "Facilities gave me spot 7 on the ground level.", "Which parking space is assigned to the user at work?"),
    ("podcast-day", "New episodes of my podcast, Small Batch, drop every Monday.", "Small Batch episodes go out on Thursdays so they line up with the sponsor's newsletter.", "On what day does the user's podcast publish new episodes?"),
    ("colleague-tz", "Arjun, our lead designer, works from Bangalore, so he's on IST.", "Arjun relocated to Toronto, so think Eastern time when booking him.", "What timezone should be used when scheduling meetings with Arjun?"),
    ("monitors", "At home I work off the laptop screen plus one 24-inch Dell.", "Desk setup: two 27-inch LG 4K monitors side by side.", "What monitors does the user have on their desk?"),
    ("work-cafe", "My usual spot for working outside the house is Foxcroft & Ginger.", "Been camping out at Kiln Coffee most afternoons; better Wi-Fi and the flat white is cheaper.", "Which café do I usually work from?"),
    (("cloud-cap", "bill"), "We've capped cloud spend at $15,000 a month.", "Finance approved a bigger cloud allowance: $22,000 a month from Q3.", "What is the monthly cloud spending cap?"),
    ("term-start", "The kids go back to school on 4 September.", "School emailed: two inset days mean term starts on Wednesday the 6th.", "When does the new school term start for the user's children?"),
    (("train-seat", "seat", "flight"), "On the train I like a forward-facing table seat.", "Aisle seats on trains please, my knee needs the room.", "What kind of train seat should be booked for the user?"),
    ("barber", "I get my hair cut at Sal's on Market Street every six weeks.", "Found a new barber, Tom at Fade Factory, he actually listens.", "Who cuts my hair?"),
    ("bin-day", "Bin day on our road is Tuesday.", "The council redid the rounds, so our bins get emptied on Saturday mornings.", "Which day are the user's bins collected?"),
    (("vpn", "sso"), "To reach the internal network we connect through Cisco AnyConnect.", "We're on Tailscale for internal access; the AnyConnect licences ran out in March.", "How does the team connect to the internal network?"),
    ("product-analytics", "Product analytics events are sent to Mixpanel.", "All our event tracking goes into PostHog.", "Which tool collects the product's analytics events?"),
    ("site-search", "The site search is powered by Elasticsearch 7.", "We swapped site search over to Meilisearch, far less to babysit.", "What powers the site search?"),
    ("billing-db-access", "Database access in the billing service goes through SQLAlchemy.", "The billing service talks to Postgres with plain SQL over asyncpg; we ripped the ORM out.", "How does the billing service access the database?"),
    ("test-runner", "Frontend tests run on Jest.", "Vitest replaced Jest for the frontend test suite.", "Which test runner does the frontend use?"),
    ("coverage", "CI fails a PR if test coverage drops below 70%.", "The coverage gate is 85% since the quality push.", "What minimum test coverage does CI enforce?"),
    ("api-version", "Integrators should call v2 of the public API.", "v3 is the supported public API; v2 is deprecated and gets no fixes.", "Which version of the public API should integrators use?"),
    ("msrv", "The crate's minimum supported Rust version is 1.70.", "Bumped the MSRV to 1.79 so we can use inline const.", "What is the crate's MSRV?"),
    (("product-name", "repo"), "Our app is called Tallyho.", "Marketing finished the rebrand: the app ships as Ledgerline.", "What is the product called?"),
    ("blog", "My personal blog runs on WordPress on a cheap shared host.", "Blog's a static Hugo site on Netlify.", "What does the user's blog run on?"),
    ("newsletter", "Our customer newsletter goes out on the first Tuesday of the month.", "The customer newsletter is fortnightly, Thursday mornings.", "How often is the customer newsletter sent?"),
    ("tennis", "My tennis coach is Marco, Sunday mornings at the club.", "I'm having tennis lessons with Ines on Wednesday evenings.", "Who coaches the user at tennis?"),
    ("kids-bedtime", "Our two are in bed by 7:30 on school nights.", "We let the kids stay up till 8:15 on school nights since the clocks went back.", "What time do the user's kids go to bed on school nights?"),
    ("babysitter", "Our babysitter is Hattie from two doors down.", "Hattie's gone off to uni, so Mrs Okonkwo across the road sits for us.", "Who babysits for the user?"),
    (("christmas", "holidays"), "Christmas this year is at my parents' in Norfolk.", "We're hosting Christmas ourselves, eleven people round our table.", "Where is the user spending Christmas?"),
    ("allotment", "Our allotment is plot 14 at Beech Lane.", "We moved over to plot 31, the one right by the water trough.", "Which allotment plot does the user have?"),
    ("cat-food", "Pepper eats Purina dry food, one scoop morning and night.", "The vet put Pepper on Hill's k/d for her kidneys, nothing else.", "What food does the user's cat eat?"),
    ("meal-kit", "We get a HelloFresh box every Monday.", "Gousto box arrives on Wednesdays, the recipes are better.", "Which meal kit does the user get?"),
    ("pilates", "Reformer Pilates is Tuesdays at 6:30 am.", "Pilates is Saturday at 9 these days, the early starts were killing me.", "When is the user's Pilates class?"),
    ("car-garage", "My car goes to the Volkswagen dealership in Reading for its service.", "Service and MOT are done at Hart's Garage in the village, half the price.", "Where does the user get their car serviced?"),
    ("keyboard", "I type on a Logitech MX Keys.", "Got a split keyboard, a ZSA Moonlander, and my wrists are thanking me.", "What keyboard does the user type on?"),
    ("alerts-channel", "Production alerts post to #ops-alerts in Slack.", "Alerts land in #prod-incidents now; #ops-alerts is archived.", "Which Slack channel receives production alerts?"),
    ("payments-owner", "Lena reviews anything that touches the payments module.", "CODEOWNERS lists Viktor for the payments module since Lena moved to platform.", "Who needs to review changes to the payments module?"),
    ("finance-export", "The nightly CSV export to the finance SFTP runs at 01:00 UTC.", "Finance asked for it later, so the export job runs at 05:30 UTC.", "When does the nightly finance export run?"),
    ("sprint-demo", "Sprint demos are on Thursday afternoons.", "We do the demo on Monday at 4 pm, right before planning.", "When is the sprint demo?"),
    ("backend-hiring", "We've got two open backend roles to fill this quarter.", "Hiring freeze: both backend reqs were pulled yesterday.", "Is the team hiring backend engineers right now?"),
    (("desk-number", "quiet"), "My desk is 4.17, by the window on the fourth floor.", "I'm at desk 2.03 near the kitchen after the floor shuffle.", "Which desk does the user sit at?"),
    ("food-bank", "I volunteer at the food bank on Saturday mornings.", "I help out at the food bank on Sunday afternoons now.", "When does the user volunteer at the food bank?"),
]

ZH = [
    ("dental", "我看牙一直在小区门口那家瑞尔齿科。", "现在看牙去市口腔医院找周大夫，做根管还是得找专家。", "我的牙医是哪位？"),
    ("library", "我平时借书去区图书馆，离家走路十分钟。", "借书证转到省图了，那边新书多。", "用户一般在哪个图书馆借书？"),
    ("parking-spot", "我家车位是地库 B1-086。", "物业给调了个车位，B2-213，靠近电梯口。", "用户家的车位号是多少？"),
    ("podcast-day", "我们的播客《下班以后》每周二更新。", "《下班以后》改成每周五晚上上新了。", "用户的播客哪天更新？"),
    ("colleague-tz", "对接的同事 Kevin 在新加坡，跟我们没时差。", "Kevin 调去伦敦办公室了，约会得算上七八个小时的时差。", "跟 Kevin 约会议要按哪个时区？"),
    (("monitors", "desk-home"), "在家办公就一台 24 寸的 AOC 显示器。", "桌上现在是两台 27 寸 4K，一横一竖。", "用户桌上用的是什么显示器？"),
    ("cafe", "周末喜欢带电脑去楼下的 Manner 坐坐。", "最近周末都泡在街角那家“半亩”，位子宽，插座也多。", "用户周末常去哪家咖啡馆？"),
    (("cloud-cap", "bill"), "云资源每个月预算上限是 6 万。", "下季度开始云预算放到每月 9 万。", "每月的云资源预算上限是多少？"),
    ("school-start", "儿子 9 月 1 号开学。", "学校发通知了，今年 8 月 30 号就得去报到。", "用户的儿子哪天开学？"),
    (("plane-seat", "seat", "flight"), "坐飞机我一般选前排，下飞机快。", "以后订机票帮我选紧急出口那排，腿能伸开。", "给用户订机票该选什么座位？"),
    ("haircut", "剪头发我一直找楼下理发店的 Tony 老师。", "现在剪头去商场三楼那家，找小雅，剪得比之前好。", "用户去哪儿剪头发？"),
    ("garbage", "小区垃圾定时投放是早上 7 点到 9 点。", "垃圾投放时间调成晚上 6 点到 8 点了。", "小区几点可以扔垃圾？"),
    ("vpn", "在家连公司内网用的是深信服 EasyConnect。", "内网客户端统一装飞连，EasyConnect 已经停用了。", "在家怎么连公司内网？"),
    (("tracking", "warehouse"), "App 的埋点数据都上报到神策。", "埋点上报切到火山引擎的 DataFinder 了。", "App 的埋点数据上报到哪个平台？"),
    ("push", "App 消息推送接的是极光。", "推送服务商换成个推了，到达率高一些。", "App 推送用的是哪家服务？"),
    ("config-center", "微服务的配置都放在 Apollo 上。", "配置中心迁到 Nacos 了。", "服务配置放在哪个配置中心？"),
    ("api-docs", "接口文档用 Swagger 自动生成。", "前后端现在都在 Apifox 上对接口。", "前后端在哪儿看接口文档？"),
    ("coverage", "单测覆盖率要求不低于 60%。", "覆盖率门槛提到 80% 了，达不到 MR 合不进去。", "单测覆盖率最低要多少？"),
    (("code-hosting", "repo"), "代码都托管在 Gitee 企业版上。", "仓库已经全部搬到公司自建的 GitLab。", "公司的代码托管在哪里？"),
    ("go-version", "后端服务编译用的是 Go 1.19。", "Go 统一升到 1.22 了。", "后端用的 Go 是哪个版本？"),
    (("product-name", "repo"), "我们的 App 叫“记一笔”。", "产品正式改名叫“小账本”，商标也批下来了。", "产品叫什么名字？"),
    ("wechat-account", "我的公众号一周更两篇。", "公众号最近日更，每晚九点推送。", "用户的公众号多久更新一次？"),
    ("livestream", "我每周五晚上八点在抖音开播。", "直播挪到周六下午两点了，周五晚上大家都出去玩，没什么人看。", "用户什么时候直播？"),
    ("english-tutor", "孩子的英语外教是加拿大的 Emily。", "外教换成了一个叫 Jack 的英国老师。", "用户孩子的英语外教是谁？"),
    ("daughter-bedtime", "闺女每天晚上九点上床睡觉。", "上一年级了，八点半就得让她睡。", "用户的女儿晚上几点睡？"),
    ("nanny", "家里请的育儿嫂是河南的王姐。", "王姐回老家了，新来的李阿姨是四川人，做饭特别好吃。", "用户家现在的育儿嫂是谁？"),
    (("new-year", "hometown"), "今年春节打算在我爸妈家过。", "春节去我老婆娘家过，在潮州，票都买好了。", "用户今年在哪儿过年？"),
    ("building-manager", "我们楼的物业管家是小刘。", "管家换成小马了，有事直接找她。", "用户那栋楼的物业管家是谁？"),
    ("cat-food", "家里的猫吃的是渴望六种鱼。", "医生说猫肾不太好，现在只吃皇家的肾脏处方粮。", "用户家的猫吃什么猫粮？"),
    ("breakfast", "早饭一般在地铁口买个煎饼果子。", "早餐现在自己在家煮燕麦，再加个鸡蛋。", "用户早餐一般吃什么？"),
    ("pilates", "每周二晚上去上普拉提团课。", "普拉提私教课约在每周四中午。", "用户的普拉提课在什么时候？"),
    ("car-service", "车一直在 4S 店做保养。", "保养不再去 4S 店了，现在去途虎，机油自己网上买。", "用户的车在哪里做保养？"),
    ("ime", "我用的是搜狗输入法。", "换成微信输入法了，没广告。", "我用的是什么输入法？"),
    ("alert-group", "线上告警都推到“生产告警”那个钉钉群。", "告警统一接到飞书的“线上事故”群里了。", "线上告警推送到哪个群？"),
    ("order-owner", "订单模块的代码评审找小赵。", "小赵转岗了，订单模块现在归阿杰 review。", "订单模块的代码该找谁评审？"),
    ("reconcile-job", "对账任务每天凌晨三点跑。", "对账任务挪到早上五点半了，避开备份高峰。", "对账任务每天几点跑？"),
    ("prd-review", "需求评审会一般定在周三下午。", "需求评审固定在周一上午十点。", "需求评审会是什么时候？"),
    ("headcount", "今年我们组还有两个后端 HC。", "HC 全部冻结了，今年不招人了。", "用户的组现在还招后端吗？"),
    (("desk-number", "quiet"), "我的工位在 7 楼靠窗，A12。", "部门搬到 9 楼，我坐 C03，挨着茶水间。", "用户的工位在哪里？"),
    ("annual-checkup", "公司年度体检是在美年大健康做。", "今年体检换成爱康国宾了，套餐也升级了。", "公司的年度体检在哪家机构做？"),
]

# Unrelated memories: (topic key, text), the tuned set's (`facts_change.py`) and some more. Some
# are near a scenario's topic on purpose (a partner's dentist, a brother's parking space, a
# friend's podcast, the ML team's GPU budget, a dog's food): a rule must not take them for the
# fact that changed.
EN_OTHER = list(TUNED_EN_OTHER)
ZH_OTHER = list(TUNED_ZH_OTHER)

EN_OTHER += [
    ("partner-dentist", "Daniel's dentist is a lovely woman in Clapham; he's been with her for years."),
    ("brother-parking", "My brother rents a parking space by his office in Leeds."),
    ("friend-podcast", "My friend Tariq hosts a true-crime podcast with his sister."),
    ("client-tz", "Northwind's ops team works Sydney hours."),
    ("gpu-budget", "The ML team has a separate GPU budget of $3,000 a month."),
    ("niece-school", "My niece starts secondary school in September."),
    ("mobile-tests", "The mobile app's UI tests run on Firebase Test Lab."),
    ("neighbour-bins", "Next door always forgets to put their recycling out."),
    ("legacy-api", "The legacy SOAP endpoints get switched off next year."),
]

ZH_OTHER += [
    ("mom-dentist", "我妈的假牙是在她们县医院配的。"),
    ("colleague-parking", "同事老李的车位在地库 B2，离电梯很远。"),
    ("friend-podcast", "朋友阿梅在做一档聊读书的播客。"),
    ("gpu-budget", "算法组的 GPU 费用单独核算。"),
    ("niece-school", "侄女今年九月上初中。"),
    ("mom-ime", "我妈打字用的是手写输入。"),
    ("dog-food", "团子只吃冻干，别的狗粮闻都不闻。"),
    ("report-cron", "运营日报每天早上 8 点自动生成。"),
]


def main():
    write_held_out(20260421, "h4", EN, ZH, EN_OTHER, ZH_OTHER)


if __name__ == "__main__":
    main()
