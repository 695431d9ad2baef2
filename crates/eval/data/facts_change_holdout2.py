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

Unrelated memories never use "user"/"用户". The pools are imported from facts_change.py (as is
the function that writes a scenario), plus a few new ones near some scenarios (a relative's job
or bike, another service's port). A scenario names one or more topic keys; unrelated memories with any of those keys are left out of its
namespace, so no distractor states or contradicts the scenario's fact.

Deterministic (seeded):

    python3 facts_change_holdout2.py > facts_change_holdout2.jsonl

The format is `rearview_eval::load_jsonl`'s.
"""

from facts_change import EN_OTHER as TUNED_EN_OTHER, ZH_OTHER as TUNED_ZH_OTHER, write_held_out

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

# Unrelated memories: (topic key, text), the tuned set's (`facts_change.py`) and some more. Some
# are near a scenario's topic on purpose (a sister's city, another service's port, the marketing
# site's framework): a rule must not take them for the fact that changed.
EN_OTHER = list(TUNED_EN_OTHER)
ZH_OTHER = list(TUNED_ZH_OTHER)

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

def main():
    write_held_out(20260131, "h2", EN, ZH, EN_OTHER, ZH_OTHER)


if __name__ == "__main__":
    main()
