#!/usr/bin/env python3
"""Writes facts_change_holdout2.jsonl: a second, fresh HELD-OUT "facts that change" set.

Modelled on crates/eval/data/facts_change.py (same record shapes, ids, unrelated-memory pools,
topic-key exclusion and timing scheme; a different seed), but with 40 English and 40 Chinese
scenarios written from scratch, so a recall rule can be measured on data nobody looked at while
designing it. None of the statements or questions reuse or paraphrase those of facts_change.py or
facts_change_holdout.jsonl.

Each scenario is one namespace (`h2-en-01`.., `h2-zh-01`..): 34 unrelated memories, an older
statement of a fact about the user or their work/project/family (`old`), a newer statement that
changes it (`new`), and a question asked after the change whose gold is `["new"]`. Newer
statements are phrased as people write to an assistant: some with explicit change words, many
without; a few mention the old value, most do not. Categories are `en` and `zh`.

Unrelated memories never use "user"/"用户". The pools are copied from facts_change.py, plus a
few new ones near some scenarios (a relative's job or bike, another service's port). A scenario
names one or more topic keys; unrelated memories with any of those keys are left out of its
namespace, so no distractor states or contradicts the scenario's fact.

Deterministic (seeded):

    python3 facts_change_holdout2.py > facts_change_holdout2.jsonl

The format is `rearview_eval::load_jsonl`'s.
"""

import json
import random
from datetime import datetime, timedelta, timezone

# (topic key or keys, older statement, newer statement, question).
EN = [
    (("city", "apartment"), "I live in Glasgow, in the West End near the Botanic Gardens.", "We got the keys to our house in Edinburgh on Friday, so that's home now.", "Which city is the user's house in?"),
    ("job", "I'm an auditor at Deloitte.", "Accepted the offer from Monzo! I'm their financial controller from the 1st.", "Which company should be listed as the user's employer?"),
    ("team", "I'm on the payments squad, mostly working on refunds.", "My director moved me over to the search relevance team.", "Which team is the user part of?"),
    ("role", "I'm the scrum master for the two mobile teams.", "I stepped away from scrum master duties and I'm product owner for the onboarding flow now.", "What role does the user currently have?"),
    ("passwords", "All my passwords live in LastPass.", "After the breach news I exported everything into 1Password and deleted the old vault.", "Which password manager does the user rely on?"),
    ("ml-python", "The ML workers run on Python 3.8.", "ML workers are on 3.12 as of Tuesday's deploy.", "What Python version do the ML workers run?"),
    ("payments", "We take card payments through Braintree.", "Checkout runs on Adyen these days; Braintree's fees were eating our margin.", "Which payment provider handles checkout?"),
    ("images", "Product photos are stored in an S3 bucket.", "We moved the product images to Cloudflare R2 to get rid of egress fees.", "Where are the product images kept?"),
    ("choir", "Choir practice is on Wednesday nights.", "This season the choir rehearses on Mondays, 7 to 9.", "What evening is the user's choir rehearsal?"),
    ("cleaner", "Our cleaner comes every other Thursday.", "Magda, our cleaner, can only do Monday mornings from now on.", "Which day does the cleaner come to the user's home?"),
    ("tax", "My tax return is due April 15.", "We filed for an extension, so the return isn't due until October 15.", "By when does the user have to file their taxes?"),
    ("freeze", "Code freeze for release 3.2 is on November 20.", "The release manager pulled the 3.2 code freeze forward a week, to November 13.", "When is the 3.2 code freeze?"),
    (("emergency", "partner"), "My emergency contact is my brother Paul.", "Put my wife Ingrid down as my emergency contact; Paul is abroad most of the year.", "Who should be called if something happens to the user?"),
    ("aws-root", "The AWS root account is registered to cto@lumenlabs.io.", "The AWS root login uses the shared mailbox aws-root@lumenlabs.io now.", "Which email address is the AWS root account tied to?"),
    ("verbosity", "Keep your answers short, bullet points are enough.", "Can you give me fuller explanations with a worked example or two? The bullet-point answers have been too terse for me to follow.", "How detailed should responses to the user be?"),
    ("units", "Give me temperatures in Fahrenheit.", "I'm settled in Europe for good, so use Celsius.", "In which unit should temperatures be shown to the user?"),
    ("keto", "I'm on a strict keto diet.", "Keto's over for me, I'm back to eating bread and pasta.", "Is the user still doing keto?"),
    ("meds", "The user takes 50 mg of sertraline every morning.", "The user's doctor raised the sertraline dose to 100 mg.", "What sertraline dose is the user on?"),
    ("smoking", "I smoke about ten cigarettes a day.", "Three months without a single cigarette today!", "Does the user smoke?"),
    ("craft", "Pottery is my weekend thing; I've got a wheel in the garage.", "I sold the wheel. Woodworking has taken over the garage and I'm building a bookshelf.", "What craft does the user spend spare time on?"),
    ("instrument", "I'm learning the violin.", "My teacher suggested the cello for my hands, and honestly I love it, so that's what I practise.", "Which instrument is the user learning?"),
    ("mum", "My mum lives with us.", "Mum moved into a care home in Bath over the summer.", "Where does the user's mother live?"),
    ("husband", "My husband teaches at a primary school.", "My husband quit teaching and works full-time as a carpenter.", "What job does the user's husband have?"),
    (("pets", "dog"), "We have a hamster called Nibbles.", "Nibbles died last week; there are no pets in the house now.", "Is the user currently a pet owner?"),
    ("bike", "My commuter bike is a Brompton.", "Someone nicked the Brompton from outside the station last Tuesday, so I'm commuting on a secondhand Trek hybrid until insurance pays out.", "What bike does the user ride to work?"),
    ("mortgage", "Our mortgage is fixed at 1.9%.", "We remortgaged at 4.4% fixed for five years.", "What's the interest rate on the user's mortgage?"),
    ("pension", "The user puts 5% of their salary into a pension.", "The user raised pension contributions to 8% from the new tax year.", "How much of the user's salary goes into the pension?"),
    ("holiday", "Our family holiday this year is a week in Crete in August.", "We cancelled Crete and booked a cabin in the Lake District for the same week.", "Where is the user's family going in August?"),
    ("train", "My train to Paris leaves at 08:01 on the 12th.", "Eurostar cancelled the 08:01 and rebooked me on the 10:31.", "What time is the user's train to Paris?"),
    ("music", "I pay for Spotify Premium.", "Moved my library over to Apple Music and cancelled Spotify.", "Which music streaming service does the user subscribe to?"),
    ("economist", "I get The Economist in print every week.", "The Economist is digital-only for me now, too much paper piling up.", "Does the user get The Economist on paper?"),
    ("redesign", "The mobile redesign is blocked on legal review.", "Legal signed off, and the mobile redesign is in QA.", "What's the status of the mobile redesign?"),
    ("kafka", "The Kafka migration is on hold until Q2.", "We restarted the Kafka migration this week; three of the eight services have already cut over.", "Is the Kafka migration still on hold?"),
    ("calls", "We use Zoom for client calls.", "Client calls are all on Google Meet these days.", "Which video tool does the user use for client calls?"),
    ("dns", "Our domains' DNS is managed in GoDaddy.", "DNS for all our domains sits in Route 53.", "Where is DNS for the company's domains managed?"),
    ("android", "The app supports Android 10 and up.", "We dropped Android 10 through 12; the minimum is Android 13.", "What is the oldest Android version the app supports?"),
    ("tokens", "Session tokens expire after 24 hours.", "After the security review, session tokens last 8 hours.", "How long is a session token valid?"),
    ("datadog", "Our account rep at Datadog is Kevin Moore.", "Datadog assigned us a new rep, Alicia Grant.", "Who is the team's Datadog account rep?"),
    (("workweek", "hours"), "I work Monday to Friday, nine to five.", "I went down to a four-day week, so Fridays are off.", "Is the user working on Fridays?"),
    ("name", "Please call me Elizabeth.", "Actually, Liz is fine. Everyone calls me that.", "What should I call the user?"),
]

ZH = [
    ("city", "我在郑州生活快十年了。", "落户手续都办好了，以后就是合肥人了。", "用户现在在哪个城市安家？"),
    ("job", "我在华为做硬件测试。", "入职小米快一个月了，还是干测试。", "用户现在的东家是哪家公司？"),
    ("team", "我在支付组，主要负责对账。", "领导把我调去风控组了。", "用户现在在哪个组？"),
    ("role", "我现在是产品助理，跟着老大做会员业务。", "转正答辩过了，会员线交给我独立负责，职位是产品经理。", "用户现在的职位是什么？"),
    (("notes-app", "notebook"), "我平时用印象笔记记东西。", "笔记全导进 Obsidian 了，印象笔记的会员也没续。", "用户用什么软件记笔记？"),
    ("bundler", "前端项目用 Webpack 4 打包。", "打包工具换成 Vite 之后，构建快了好几倍。", "前端项目用什么工具打包？"),
    ("miniapp", "小程序要求基础库 2.10 以上。", "小程序最低基础库版本提到 2.25 了。", "小程序最低要求哪个版本的基础库？"),
    ("courier", "公司寄快递一般走中通。", "行政和顺丰签了月结，以后寄件都用顺丰。", "公司现在寄快递用哪家？"),
    ("images", "商品图片存在又拍云上。", "图片已经全部迁到阿里云 OSS。", "商品图片目前存放在哪里？"),
    ("swim", "我每周三晚上上游泳课。", "游泳课调到周六下午两点了。", "用户的游泳课是哪天？"),
    ("cleaner", "保洁阿姨每周五上午来家里打扫。", "保洁阿姨说以后只能周一来了。", "保洁阿姨哪天上门？"),
    ("appraisal", "年度述职材料下周三交。", "HR 刚通知，述职材料这周五就要交，提前了。", "述职材料截止到哪天？"),
    ("visa", "签证材料要在 8 号之前递交。", "领馆那边的预约改到 15 号了，材料到时候当场交，8 号不用去了。", "用户哪天去递交签证材料？"),
    ("supplier", "供应商那边的对接人是张经理。", "供应商换人了，现在找陈晓燕对接。", "和供应商对接应该找谁？"),
    ("alipay", "我支付宝绑的是建行储蓄卡。", "支付宝默认付款方式换成花呗了。", "用户在支付宝上默认用什么付款？"),
    ("gh-admin", "公司 GitHub 组织的管理员是我。", "GitHub 组织的管理员权限我已经交接给老周了。", "公司 GitHub 组织的管理员是谁？"),
    ("verbosity", "回答问题简短点，直接给结论就行。", "以后麻烦多讲讲推理过程，光看结论我经常看不明白。", "回答用户的问题要写多详细？"),
    ("milk-tea", "我喝奶茶一定要全糖。", "奶茶我现在只点无糖的。", "给用户点奶茶选几分糖？"),
    ("beef", "我从小就不吃牛肉。", "上周跟同事去吃了潮汕牛肉火锅，现在牛肉我也吃了。", "用户吃牛肉吗？"),
    ("bp", "用户有高血压，每天吃一片氨氯地平。", "医生给用户加了量，降压药现在每天吃两片。", "用户的降压药一天吃几片？"),
    ("eyes", "我近视 600 度，出门离不开眼镜。", "上个月做了全飞秒，现在视力 5.0。", "用户现在还需要戴眼镜吗？"),
    ("hobby", "我在练书法，一周写三次。", "书法先放下了，最近迷上了尤克里里。", "用户业余时间在捣鼓什么？"),
    ("parents", "我爸妈跟我们住一起，平时帮忙接送孩子。", "老两口嫌城里待着闷，上个月回老家了，孩子现在我和老婆轮流接送。", "用户的父母还和用户住在一起吗？"),
    ("wife", "我老婆在中学教英语。", "我老婆考进了区教育局，不在学校教书了。", "用户的妻子在哪里工作？"),
    ("parrot", "家里养了一只虎皮鹦鹉，叫小绿。", "小绿上周从阳台飞走了，到现在也没找回来。", "用户家里还养着鹦鹉吗？"),
    ("car-insurance", "我的车险是在平安买的。", "今年车险转到人保了，便宜了八百多。", "用户的车险在哪家保险公司？"),
    ("fund", "我每个月定投 2000 块沪深 300。", "定投降到每月 1000 了，最近手头有点紧。", "用户每月定投多少钱？"),
    ("mortgage", "房贷利率是 5.88%。", "银行下调了存量房贷利率，现在执行 3.95%。", "用户的房贷利率是多少？"),
    ("national-day", "国庆打算去云南自驾。", "云南那边人太多了，国庆改去新疆。", "用户国庆假期去哪儿玩？"),
    ("train", "下周二坐 G79 去广州。", "车票改签了，改成周三上午的 G71。", "用户坐哪趟高铁去广州？"),
    ("video-vip", "我开的是爱奇艺年卡会员。", "爱奇艺到期没续，现在开的是腾讯视频会员。", "用户现在是哪个视频平台的会员？"),
    ("broadband", "用户家里是电信 300 兆宽带。", "用户把家里宽带升到了千兆。", "用户家的宽带是多少兆？"),
    ("member-refactor", "会员系统重构目前卡在数据迁移上。", "会员系统重构上周已经全量上线了，老系统下个月下线，数据迁移也没出什么问题。", "会员系统重构进展到哪一步了？"),
    (("app2", "release"), "App 2.0 计划 11 月提交审核。", "2.0 已经过审，各大应用商店都能下载了。", "App 2.0 现在是什么状态？"),
    ("meetings", "线上会议我们用腾讯会议。", "公司统一采购了飞书，开会都在飞书上。", "团队开线上会议用什么软件？"),
    ("timeout", "网关超时时间设的是 5 秒。", "报表接口老超时，网关超时调到了 15 秒。", "网关超时设置是多少秒？"),
    ("cache-ttl", "Redis 缓存过期时间是 1 小时。", "缓存 TTL 改成 10 分钟了，不然数据更新太慢。", "缓存多长时间过期？"),
    ("name", "叫我小陈就行。", "同事们现在都叫我陈姐，你也这么叫吧。", "应该怎么称呼用户？"),
    ("phone-model", "我用的是 iPhone 13。", "换了华为 Mate 60，旧 iPhone 给我妈用了。", "用户现在用的什么手机？"),
    ("cpa", "我今年 CPA 报了会计和税法。", "CPA 改报审计和经济法了，会计明年再考。", "用户今年 CPA 考哪两科？"),
]

# Unrelated memories: (topic key, text). Some are near a scenario's topic on purpose (a sister's
# city, another service's port, the marketing site's framework): a rule must not take them for
# the fact that changed.
EN_OTHER = [
    ("sister", "My sister Laura lives in Munich and works at BMW."),
    ("partner", "My partner's name is Daniel."),
    ("dog", "We have a golden retriever named Biscuit."),
    ("allergy", "I'm allergic to peanuts."),
    ("birthday", "My birthday is on October 3rd."),
    ("seat", "I prefer window seats on flights."),
    ("sleep", "I usually go to bed around 11 pm."),
    ("son", "My son plays football on Saturday mornings."),
    ("book", "I'm reading 'The Three-Body Problem' at the moment."),
    ("dentist", "I have a dentist appointment on the 14th at 2 pm."),
    ("band", "My favourite band is Radiohead."),
    ("camera", "I collect vintage film cameras."),
    ("badminton", "I play badminton with colleagues on Thursdays."),
    ("passport", "My passport expires in 2027."),
    ("trip", "I'm saving up for a trip to Japan next spring."),
    ("mother", "My mother's birthday is in June."),
    ("desk-home", "I use a standing desk at home."),
    ("hand", "I'm left-handed."),
    ("meditation", "I've been meditating for ten minutes every morning."),
    ("takeaway", "My go-to takeaway is Thai green curry."),
    ("screen", "I'm trying to reduce my screen time in the evenings."),
    ("football", "I support Arsenal."),
    ("hometown", "I grew up in a small town near Porto."),
    ("spoken", "I speak German and a bit of French."),
    ("flight", "My flight to Chicago leaves on Friday at 7:40."),
    ("license", "I need to renew my driver's license this year."),
    ("plants", "I water the plants every Sunday."),
    ("yoga", "My yoga class is on Wednesday evenings."),
    ("hours", "I'm a night owl and do my best work after 10 pm."),
    ("kids", "I have two kids, aged 7 and 10."),
    ("apartment", "Our apartment is on the fourth floor without an elevator."),
    ("notebook", "I prefer paper notebooks for brainstorming."),
    ("cuisine", "My favourite cuisine is Korean."),
    ("milk", "I buy oat milk instead of cow's milk."),
    ("staging-db", "The staging database runs on port 5439."),
    ("sprint", "Our sprint length is two weeks."),
    ("review", "Code review requires two approvals before merging."),
    ("mobile", "The mobile app is built with Flutter."),
    ("region", "Production runs in the eu-west-1 region."),
    ("design", "The design system lives in Figma."),
    ("iac", "We use Terraform for infrastructure."),
    ("notes", "Release notes are written by the product manager."),
    ("backend", "The backend is a Go monolith with a few Python workers."),
    ("flags", "Feature flags are managed in LaunchDarkly."),
    ("rotation", "The on-call rotation changes every Monday."),
    ("feedback", "Customer feedback is collected in a shared Airtable base."),
    ("customer", "Our biggest customer is Northwind Traders."),
    ("warehouse", "The data warehouse is BigQuery."),
    ("logs", "Logs are retained for 30 days."),
    ("semver", "We follow semantic versioning for the public SDK."),
    ("holidays", "The office is closed on public holidays."),
    ("expenses", "Expense reports must be filed within 30 days."),
    ("allhands", "The quarterly all-hands is usually in the last week of the quarter."),
    ("tests", "Unit tests must pass before deploys are allowed."),
    ("slack", "The company uses Slack for chat."),
    ("design-review", "Our design review happens on Fridays."),
    ("sdk", "The SDK supports Python 3.9 and newer."),
    ("backups", "Backups run nightly at 02:00 UTC."),
    ("roadmap", "The product roadmap is reviewed every quarter."),
    ("sso", "Password resets go through Okta."),
    ("rate", "The API rate limit is 100 requests per minute per key."),
    ("translations", "Translations are handled by an agency in Dublin."),
    ("site", "The marketing site is built with Next.js."),
    ("bill", "Our cloud bill last month was about $12,000."),
    ("intern", "The intern, Priya, starts in July."),
    ("repo", "The main repository is called atlas."),
    ("secrets", "We store secrets in HashiCorp Vault."),
    ("lb", "The load balancer is an AWS ALB."),
    ("ios", "The app's minimum iOS version is 15."),
    ("triage", "Support tickets are triaged every morning."),
    ("retro", "The team's retro is every other Friday."),
    ("dashboard", "The analytics dashboard refreshes hourly."),
    ("docker", "Docker images are built for amd64 and arm64."),
    ("licence", "The legal team must approve any new open-source licence."),
    ("sla", "Our SLA promises 99.9% uptime."),
    ("quiet", "The office has a quiet room on the third floor."),
    ("fiscal", "Our fiscal year starts in April."),
    ("panel", "Our research panel has about 40 participants."),
    ("churn", "Customer churn was 3% last quarter."),
    ("talk", "My conference talk next month is about observability."),
]

ZH_OTHER = [
    ("sister", "我姐姐在成都开了一家火锅店。"),
    ("allergy", "我对花生过敏。"),
    ("birthday", "我的生日是 10 月 3 日。"),
    ("seat", "坐飞机我喜欢靠窗的位置。"),
    ("sleep", "我一般晚上 11 点睡觉。"),
    ("son", "儿子每周六上午踢足球。"),
    ("book", "最近在读《三体》。"),
    ("band", "我最喜欢的乐队是五月天。"),
    ("camera", "我收藏老式胶片相机。"),
    ("badminton", "我和同事每周四打羽毛球。"),
    ("passport", "我的护照 2027 年到期。"),
    ("trip", "我在攒钱，明年春天想去日本旅行。"),
    ("desk-home", "我在家用升降桌办公。"),
    ("hand", "我是左撇子。"),
    ("meditation", "我每天早上冥想十分钟。"),
    ("takeaway", "点外卖我最常点黄焖鸡。"),
    ("screen", "我在努力减少晚上刷手机的时间。"),
    ("football", "我支持北京国安队。"),
    ("hometown", "我老家在江西九江。"),
    ("spoken", "我会说粤语和一点英语。"),
    ("flight", "周五早上 7 点 40 的航班飞重庆。"),
    ("license", "今年要去换驾照。"),
    ("plants", "每周日给阳台的花浇水。"),
    ("kids", "我有两个孩子，一个 7 岁，一个 10 岁。"),
    ("apartment", "我家住六楼，没有电梯。"),
    ("notebook", "我习惯用纸质笔记本记灵感。"),
    ("cuisine", "我最喜欢的菜系是粤菜。"),
    ("mother", "我妈妈的生日在六月。"),
    ("hours", "我是夜猫子，晚上效率最高。"),
    ("dog", "我们家养了一只叫团子的柯基。"),
    ("weekend", "周末常带孩子去科技馆。"),
    ("staging-db", "预发环境的数据库端口是 5439。"),
    ("sprint", "我们的迭代周期是两周。"),
    ("review", "合并代码需要两人评审通过。"),
    ("mobile", "移动端是用 Flutter 开发的。"),
    ("region", "生产环境部署在华东 2 区。"),
    ("design", "设计稿都放在 Figma 里。"),
    ("iac", "基础设施用 Terraform 管理。"),
    ("backend", "后端是 Go 写的单体服务。"),
    ("flags", "灰度发布用的是自研的开关平台。"),
    ("rotation", "值班每周一轮换。"),
    ("feedback", "客户反馈统一记在多维表格里。"),
    ("customer", "最大的客户是一家连锁超市。"),
    ("warehouse", "数据仓库用的是 ClickHouse。"),
    ("logs", "日志保留 30 天。"),
    ("semver", "SDK 遵循语义化版本。"),
    ("expenses", "报销单要在 30 天内提交。"),
    ("allhands", "每季度末开一次全员大会。"),
    ("tests", "单元测试不通过不能发布。"),
    ("design-review", "每周五下午做设计评审。"),
    ("sdk", "SDK 支持 Python 3.9 及以上版本。"),
    ("backups", "每晚两点自动备份数据库。"),
    ("roadmap", "产品路线图每季度评审一次。"),
    ("rate", "接口限流是每个密钥每分钟 100 次。"),
    ("site", "官网是用 Next.js 搭的。"),
    ("bill", "上个月云服务账单大约 8 万元。"),
    ("intern", "实习生小周七月入职。"),
    ("repo", "主仓库叫 atlas。"),
    ("secrets", "密钥统一放在 Vault 里。"),
    ("ios", "App 最低支持 iOS 15。"),
    ("triage", "客服工单每天早上统一分派。"),
    ("retro", "每两周的周五开一次回顾会。"),
    ("dashboard", "数据看板每小时刷新一次。"),
    ("docker", "镜像同时构建 amd64 和 arm64 两个架构。"),
    ("licence", "引入新的开源协议需要法务审批。"),
    ("sla", "服务承诺 99.9% 的可用性。"),
    ("quiet", "三楼有一间安静的电话间。"),
    ("fiscal", "公司财年从四月开始。"),
    ("panel", "调研小组大约有 40 人。"),
    ("churn", "上季度客户流失率是 3%。"),
    ("talk", "我下个月要在技术大会上讲可观测性。"),
    ("release", "新版本计划在周四晚上灰度发布。"),
    ("weekly-report", "运营周报每周一上午发出。"),
    ("party", "公司年会定在一月中旬。"),
    ("postman", "测试同学主要用 Postman 调接口。"),
]


# New unrelated memories, some near a scenario on purpose (a relative's bike or job, another
# service's port). They never use "user"/"用户".
EN_OTHER += [
    ("cousin", "My cousin Marta works as a pharmacist in Lisbon."),
    ("brother-bike", "My brother rides a carbon road bike at weekends."),
    ("neighbour", "Our neighbour's son is learning the drums."),
    ("status-page", "The public status page is hosted on Atlassian Statuspage."),
    ("webinars", "Webinars are recorded and uploaded to Vimeo."),
    ("friend-diet", "My friend Owen has been vegan for years."),
    ("uncle", "My uncle retired from the railways last year."),
    ("search-port", "The search service exposes metrics on port 9464."),
]

ZH_OTHER += [
    ("cousin", "我表妹在深圳一家银行上班。"),
    ("neighbor", "对门邻居家的孩子在学小提琴。"),
    ("brother-car", "我哥上个月提了一辆小鹏 P7。"),
    ("classmate", "大学同学老郑去年回老家考了公务员。"),
    ("printer", "办公室打印机归行政管。"),
    ("team-lunch", "部门每周五中午一起聚餐。"),
    ("sister-in-law", "我嫂子在保险公司做理赔。"),
]

UNRELATED = 34
WINDOW_DAYS = 200


def stamp(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def scenario(rng, lang, n, topic, old, new, question, pool):
    namespace = f"h2-{lang}-{n:02d}"
    keys = {topic} if isinstance(topic, str) else set(topic)
    start = datetime(2024, 1, 1, tzinfo=timezone.utc) + timedelta(days=rng.randrange(0, 300))
    others = rng.sample([text for key, text in pool if key not in keys], UNRELATED)
    at = lambda day: start + timedelta(days=day, minutes=rng.randrange(8 * 60, 22 * 60))
    old_at = at(rng.randrange(10, 70))
    new_at = old_at + timedelta(days=rng.randrange(20, 100))
    lines = [(at(rng.randrange(0, WINDOW_DAYS)), f"d{i + 1:02d}", text) for i, text in enumerate(others)]
    lines += [(old_at, "old", old), (new_at, "new", new)]
    lines.sort()
    last = max(t for t, _, _ in lines)
    out = [
        {"type": "memory", "namespace": namespace, "id": mid, "text": text, "timestamp": stamp(t)}
        for t, mid, text in lines
    ]
    asked = last + timedelta(days=rng.randrange(1, 15), hours=1)
    out.append({
        "type": "question", "namespace": namespace, "id": namespace, "text": question,
        "as_of": stamp(asked), "gold": ["new"], "category": lang,
    })
    return out


def main():
    rng = random.Random(20260131)
    assert len(EN) == 40 and len(ZH) == 40
    for lang, scenarios, pool in [("en", EN, EN_OTHER), ("zh", ZH, ZH_OTHER)]:
        assert len({text for _, text in pool}) == len(pool), f"{lang}: repeated distractor"
        assert not any("user" in text.lower() or "用户" in text for _, text in pool), f"{lang}: 'user' in a distractor"
        for n, (topic, old, new, question) in enumerate(scenarios, 1):
            for line in scenario(rng, lang, n, topic, old, new, question, pool):
                print(json.dumps(line, ensure_ascii=False))


if __name__ == "__main__":
    main()
