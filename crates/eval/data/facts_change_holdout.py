#!/usr/bin/env python3
"""Writes facts_change_holdout.jsonl: a HELD-OUT "facts that change" evaluation set.

It exists to check whether rules tuned on `crates/eval/data/facts_change.jsonl` (written by
`crates/eval/data/facts_change.py`) generalise. It was written independently of that set: none
of its older/newer statements or questions is reused or paraphrased here, and the scenarios were
not chosen by looking at what any rule reads.

Same shape as the tuned set: each scenario is one namespace (`ho-en-01`... and `ho-zh-01`...)
with 34 unrelated memories (`d01`...`d34`), an older statement of a fact (`old`), a newer
statement that changes it (`new`) and a question asked after the change (id = the namespace,
gold `["new"]`, category `en` or `zh`). 40 scenarios in English and 40 in Chinese. Timestamps
follow the tuned set's scheme (older statement 10-70 days into a window, newer one 20-100 days
later, question 1-14 days after the last memory).

The unrelated memories are the tuned set's pools (imported from `facts_change.py`, as is the
function that writes a scenario; the committed JSONL is what this script writes), plus a few new ones that sit near a held-out scenario on purpose
(a friend's move, a parent's address, the neighbours' cat). A scenario lists the topic keys of
the pool entries it leaves out, so no distractor states the same fact or contradicts the older
one (e.g. the partner's name is left out of "I'm single"). No unrelated memory uses
"user"/"用户".

Deterministic (seeded):

    python3 crates/eval/data/facts_change_holdout.py > crates/eval/data/facts_change_holdout.jsonl

The format is `rearview_eval::load_jsonl`'s (`rearview eval jsonl --path FILE`).
"""

from facts_change import EN_OTHER as TUNED_EN_OTHER, ZH_OTHER as TUNED_ZH_OTHER, write_held_out

# (topic keys, older statement, newer statement, question). The first key names the scenario's
# topic; all keys are left out of the distractor pool for the scenario.
EN = [
    (("home", "apartment"), "We've got a little terraced house in Leeds, ten minutes from the station.", "Just signed the lease on a flat in Porto.", "Which city should local recommendations for the user be based on?"),
    (("address",), "My postal address is 14 Elm Road, Cambridge CB1 2AB.", "Post should go to 3 Harbour Lane, Falmouth TR11 3QZ from now on.", "Where should a parcel for the user be delivered?"),
    (("office", "quiet"), "Our office is on the 12th floor of the Shard.", "The company gave up the Shard floor; we work out of a co-working space in Shoreditch.", "Where is the user's office located?"),
    (("employer",), "I work in procurement at Unilever.", "Friday was my last day at Unilever. On Monday I start in supply chain at Nestlé.", "Who is the user's employer?"),
    (("role",), "At the agency I'm a junior copywriter.", "They made me creative lead for the agency's retail accounts.", "What position does the user hold at the agency?"),
    (("career",), "I'm a chef at a small bistro in Lyon.", "I hung up my apron for good and retrained as an electrician.", "What does the user do for a living?"),
    (("phone",), "Text me on 07700 900123 if a deploy breaks.", "My old SIM died, so texts go to 07700 900456.", "Which number should deploy alerts be texted to?"),
    (("work-email",), "My work email is m.ortiz@brightlane.co.", "Use maria.ortiz@brightlane.com please, the .co domain is being retired.", "Where should work e-mails to the user be sent?"),
    (("github",), "My GitHub handle is @tomsk-dev.", "I renamed my GitHub account to @tomasz-k.", "Under which username can the user be found on GitHub?"),
    (("billing-migration",), "The migration to the new billing system has to be done by 30 September.", "Finance brought the billing migration cutoff forward to 15 September.", "What's the current deadline for the billing migration?"),
    (("pickup",), "I pick the kids up from school at 3:30.", "School finishes earlier this term, so pickup is at 3:00.", "What time does the user collect the children?"),
    (("physio",), "My physio sessions are on Tuesdays at 6 pm.", "Physio is Friday lunchtime from next week.", "When does the user have physiotherapy?"),
    (("tracker",), "We track issues in Jira.", "As of this quarter our tickets live in Linear.", "Which issue tracker does the team use?"),
    (("pipeline",), "The data pipeline is orchestrated with Airflow.", "We ripped out Airflow; Dagster runs the pipeline now.", "What orchestrates the data pipeline?"),
    (("node", "backend"), "Our services run on Node 16.", "Every service is on Node 20 after last week's upgrade.", "Which Node.js version do the services use?"),
    (("mail-provider",), "Transactional email goes out through SendGrid.", "We signed with Postmark for transactional mail; SendGrid is cancelled.", "Which provider sends the product's transactional emails?"),
    (("sushi",), "I'm a huge sushi fan.", "Since that bout of food poisoning I won't touch raw fish.", "Would the user enjoy a sushi place for dinner?"),
    (("eating", "allergy", "milk"), "I eat pretty much anything.", "I've gone fully vegan.", "Does the user have any dietary restrictions?"),
    (("weekend-sport",), "Most weekends I'm at the bouldering gym.", "Swapped climbing for sailing, so Saturdays I'm out on the lake.", "What does the user do at weekends?"),
    (("work-music",), "Jazz is my go-to background music when I work.", "Lately any music distracts me; I work in total silence.", "What should be playing while the user works?"),
    (("dept-size",), "There are 14 people in my department.", "After the layoffs my department is down to 8.", "How big is the user's department?"),
    (("site-budget",), "The user's client set aside €4,000 for the new website.", "The client approved €6,500 for the website rebuild.", "What is the budget for the client's website?"),
    (("salary",), "My base salary is $85k.", "The raise came through: $97k base starting this month.", "What is the user's base pay?"),
    (("gp",), "My GP is Dr. Patel at the Riverside practice.", "I registered with Dr. Okafor at Hillcrest Surgery after the move.", "Who is the user's family doctor?"),
    (("landlord-who",), "Our landlord is Gary, who lives upstairs.", "The building was sold and Harbourview Properties owns it now.", "Who is the user's landlord?"),
    (("relationship", "partner", "kids", "son"), "I'm single and not really looking.", "Met someone amazing; Jonas and I have been together three months.", "Is the user seeing anyone?"),
    (("pets", "dog"), "We have two rabbits, Pip and Clover.", "The rabbits went to a friend's farm and we adopted a tabby called Miso.", "What pets does the user have?"),
    (("vehicle",), "I get around on a Vespa scooter.", "Traded in the Vespa for a used Toyota Yaris.", "What vehicle does the user own?"),
    (("bus",), "I take the number 73 bus to work.", "Work is a 15-minute walk from the new flat, so no more bus.", "Does the user still ride the bus to work?"),
    (("office-days",), "I'm in the office five days a week.", "We went hybrid: office on Tuesdays and Thursdays only.", "Which days is the user in the office?"),
    (("office-hours",), "My office hours for students are Wednesday 2-4 pm.", "Office hours moved to Monday mornings, 9 to 11.", "When can students drop in on the user?"),
    (("manuscript",), "The manuscript goes to the publisher on 1 November.", "My editor gave me until the end of January for the manuscript.", "When is the user's manuscript due?"),
    (("wedding", "kids", "son"), "Our wedding is booked for 14 June.", "We had to push the wedding back to 6 September.", "What date is the user getting married?"),
    (("editor",), "I write all my code in VS Code.", "Went all-in on Neovim this year.", "Which editor does the user code in?"),
    (("k8s", "region", "lb"), "Our Kubernetes cluster runs on GKE.", "The cluster has been on EKS since the AWS migration.", "Which managed Kubernetes service hosts the cluster?"),
    (("free-plan",), "The free plan allows 3 projects.", "Free accounts get 5 projects as of today's release.", "How many projects does the free tier include?"),
    (("ap-contact",), "For invoices, talk to Mark in accounts.", "Mark left; Helen Greaves handles accounts payable.", "Who is the contact in accounts for invoices?"),
    (("plan",), "The user is on the Pro plan at $20 a month.", "User downgraded to the Basic plan to save money.", "Which subscription plan is the user on?"),
    (("reply-lang",), "Please reply to me in English.", "From now on, answer me in German, I need the practice.", "Which language should replies to the user be in?"),
    (("wake",), "I usually wake up around 9.", "With the new baby I'm up by 6 every morning.", "What time does the user get up?"),
]

ZH = [
    (("home",), "我租的房子在西安高新区，离公司两站地铁。", "房子已经退了，下周起就住厦门了。", "给用户推荐本地餐馆，应该按哪个城市找？"),
    (("address",), "快递地址填：杭州市西湖区文三路 88 号。", "收货地址改成滨江区江南大道 1200 号了。", "用户的收货地址是哪里？"),
    (("office", "quiet"), "我们公司在望京 SOHO 办公。", "公司搬到亦庄了，我现在通勤得一个多小时。", "用户公司目前在哪里办公？"),
    (("employer",), "我在阿里做电商运营。", "新工作在美团，还是干运营。", "用户现在在哪儿做运营？"),
    (("role",), "我在银行网点当柜员。", "调岗了，现在在支行做理财经理。", "用户在银行做什么岗位？"),
    (("career",), "我是律所的律师助理。", "考上公务员了，下个月去税务局报到。", "用户还在律所上班吗？"),
    (("phone",), "有事直接打我电话，186 2000 4567。", "原来那个号停机了，新号码 177 3000 8899。", "现在打哪个号码能找到用户？"),
    (("wechat",), "我的微信号是 xiaolin_88。", "微信号改成 linlin2024 了，加我用这个。", "加用户微信该搜哪个号？"),
    (("bilibili",), "我在 B 站的账号叫“咸鱼不咸”。", "B 站昵称换成“一条努力的咸鱼”了。", "用户在 B 站叫什么名字？"),
    (("renovation",), "装修要在春节前完工。", "装修公司说工期得拖到三月底。", "用户家的装修什么时候能完工？"),
    (("school-out",), "孩子每天下午四点半放学。", "这学期学校调了作息，五点才放学。", "用户的孩子几点放学？"),
    (("driving", "license"), "每周日下午去驾校练车。", "教练说以后改成周二、周四晚上练。", "用户什么时候去练车？"),
    (("tracker",), "我们用禅道管理需求和 bug。", "需求和缺陷现在都在 TAPD 上跟踪。", "团队用什么平台跟踪缺陷？"),
    (("backend-lang", "backend"), "后端接口是用 PHP 写的。", "接口层已经用 Spring Boot 重构完了。", "后端接口现在是用什么技术写的？"),
    (("jdk", "backend"), "线上跑的是 JDK 8。", "生产环境上个月升到了 JDK 17。", "线上服务用的是哪个版本的 JDK？"),
    (("sms",), "短信验证码用的是云片的服务。", "验证码短信已经切到创蓝的通道了。", "验证码短信目前走哪家服务商？"),
    (("seafood",), "我特别爱吃海鲜，尤其是生蚝。", "上次吃生蚝过敏进了医院，海鲜我现在碰都不碰。", "给用户订餐能选海鲜吗？"),
    (("eating", "allergy"), "我不挑食，什么都吃。", "最近在控糖，米饭和甜食基本不碰。", "用户饮食上有什么忌口？"),
    (("hobby",), "我业余时间最爱钓鱼。", "鱼竿都送人了，现在周末都在练飞盘。", "用户的业余爱好是什么？"),
    (("drinking",), "我酒量还行，白酒能喝半斤。", "体检查出脂肪肝，酒已经戒了。", "聚餐时要给用户倒酒吗？"),
    (("dept-size",), "我们部门一共 20 个人。", "部门拆分以后只剩 12 个人了。", "用户所在的部门有多少人？"),
    (("teambuilding",), "这次团建预算人均 300。", "团建经费批下来了，人均 500。", "团建的人均预算是多少？"),
    (("weight",), "我现在 75 公斤。", "减肥三个月，掉到 68 公斤了。", "用户目前体重多少？"),
    (("parking",), "小区车位月租 400 元。", "物业把车位费调到了一个月 600。", "用户的车位每月要交多少钱？"),
    (("father-doctor",), "我爸的主治医生是华山医院的周主任。", "我爸转到瑞金医院了，现在由孙医生负责。", "用户父亲的主治医生是谁？"),
    (("landlord-who",), "房东是一位退休的赵阿姨。", "房子被卖了，新房东是个年轻小伙，姓何。", "用户现在的房东姓什么？"),
    (("relationship", "kids", "son", "weekend"), "我目前单身。", "跟相亲认识的女生在一起了，她叫小雨。", "用户有对象吗？"),
    (("pets", "dog"), "家里养了一只英短蓝猫。", "猫送给我妈养了，我这边养了两只仓鼠。", "用户现在家里养的是什么宠物？"),
    (("vehicle",), "我平时开一辆大众朗逸。", "家里添了一台理想 L7，朗逸给我爸开了。", "用户现在开哪辆车？"),
    (("workweek",), "我们公司是大小周。", "公司取消大小周了，改成双休。", "用户周六要上班吗？"),
    (("arrival",), "我每天九点到岗。", "公司推行弹性工作制，我一般十点才到。", "用户早上几点到公司？"),
    (("cet6",), "我打算考今年 6 月的六级。", "6 月那场没抢到考位，改报 12 月的了。", "用户打算考哪一场六级？"),
    (("wedding", "kids", "son", "weekend"), "婚礼定在 5 月 20 号。", "婚期改到国庆了，酒店 5 月没档期。", "用户的婚礼哪天办？"),
    (("ide",), "我写代码用 IntelliJ IDEA。", "最近全面转投 Cursor 了。", "用户平时用什么 IDE 写代码？"),
    (("k8s",), "服务都跑在自建的 K8s 集群上。", "集群已经整体迁到阿里云 ACK 上了。", "服务跑在什么 K8s 集群上？"),
    (("export-quota",), "免费版每天能导出 3 次。", "免费用户的导出次数放宽到了每天 10 次。", "免费版一天能导出几次？"),
    (("reimburse-contact",), "报销的事找财务小王。", "小王休产假了，这段时间报销找刘姐。", "用户报销该找谁？"),
    (("mobile-plan",), "用户的手机套餐是每月 128 元的。", "用户把手机套餐降到了 58 元档。", "用户手机套餐每月多少钱？"),
    (("reply-lang",), "请用中文回复我。", "以后直接用英文回我吧，正好练练英语。", "回复用户时应该用哪种语言？"),
    (("wake",), "我一般早上八点起床。", "换了早班，每天五点半就得起。", "用户每天几点起床？"),
]

# Unrelated memories: (topic key, text). The tuned set's (`facts_change.py`), then a few new
# ones near a held-out scenario on purpose.
EN_OTHER = list(TUNED_EN_OTHER)
ZH_OTHER = list(TUNED_ZH_OTHER)

EN_OTHER += [
    ("brother-job", "My brother started a new job at a logistics firm last month."),
    ("parents-address", "My parents live at 27 Mill Street, Harrogate."),
    ("friend-move", "My friend Chloe just moved to Valencia."),
    ("gitlab", "Our self-hosted GitLab lives at git.internal.example."),
    ("cdn", "Static assets are served through Cloudflare."),
    ("neighbour-cat", "The neighbours' cat keeps sleeping on our doorstep."),
    ("gym-fee", "My gym membership costs £35 a month."),
    ("parking", "Parking near the office costs £12 a day."),
]

ZH_OTHER += [
    ("cousin-job", "我表弟刚从京东离职，准备考研。"),
    ("parents-address", "我爸妈住在老家县城的单位宿舍。"),
    ("friend-move", "大学室友前阵子搬去了成都。"),
    ("mirror", "公司内部的 npm 镜像地址是 npm.internal.cn。"),
    ("neighbour-cat", "楼下邻居家的橘猫老跑到我们阳台上。"),
    ("gym-fee", "健身房年卡 2400 元。"),
    ("property-fee", "小区物业费每平米 2.5 元。"),
    ("cdn", "静态资源走的是七牛云 CDN。"),
]


def main():
    write_held_out(20250815, "ho", EN, ZH, EN_OTHER, ZH_OTHER)


if __name__ == "__main__":
    main()
