#!/usr/bin/env python3
"""Writes facts_change.jsonl: the bilingual "facts that change" evaluation (issue 15).

Each scenario is one namespace: 34 unrelated memories about a user and their projects, an older
statement of a fact, a newer statement that changes it (moved city, changed port, negated
preference, new e-mail, new job, changed deadline, new phone, from X to Y, ...), and a question
asked after the change whose gold is the newer statement. 64 scenarios in English, 64 in Chinese.
The newer statements are phrased in many ways on purpose: some say "now" / "改成", most do not.

Unrelated memories never use "user"/"用户", the word the questions name their subject by, in
another sense ("the user research panel"): such a trap measures keyword luck, not facts that
change. Some are near a scenario on purpose (a sister's city, another service's port).

Memory ids are `d01`...`d34` (unrelated), `old` and `new`; the question id is the namespace's.
Categories are `en` and `zh`. Everything is deterministic (seeded), so the committed file is
exactly what this script writes:

    python3 crates/eval/data/facts_change.py > crates/eval/data/facts_change.jsonl

The format is `rearview_eval::load_jsonl`'s. The data is ours (written for this evaluation).
"""

import json
import random
from datetime import datetime, timedelta, timezone

# (topic key, older statement, newer statement, question). Unrelated memories with the same
# topic key are left out of the scenario's namespace, so no distractor states the same fact.
EN = [
    ("city", "I live in Berlin, in a flat near Tempelhofer Feld.", "I moved to Lisbon last month and I'm renting near Alfama.", "Which city does the user live in?"),
    ("city", "Home for me is Seattle.", "We relocated to Denver in the spring for my partner's job.", "Where does the user live now?"),
    ("city", "I'm based in Manchester.", "Just finished unpacking in our new place in Bristol!", "What city is the user based in?"),
    ("city", "The user lives in Toronto.", "The user moved from Toronto to Vancouver.", "Where is the user living these days?"),
    ("city", "I rent an apartment in Brooklyn.", "Since August I've been living in Austin, Texas.", "Where does the user live?"),
    ("city", "My home base is Singapore.", "I left Singapore; home is Sydney these days.", "Which city is the user's home?"),
    ("api-port", "The API server listens on port 8080.", "We switched the API server to port 9090.", "Which port does the API server listen on?"),
    ("grafana", "Grafana is exposed on port 3000.", "Grafana's port changed from 3000 to 3100 to avoid a clash.", "What port is Grafana on?"),
    ("dev-db", "The dev database runs on localhost:5432.", "The dev database was moved to localhost:5433.", "What is the address of the dev database?"),
    ("redis", "Redis for the cache uses port 6379.", "The cache Redis listens on 6380 after the migration.", "Which port does the cache Redis use?"),
    ("metrics", "The metrics exporter serves on :9100.", "Metrics exporter port is 9200 after the config change.", "On which port is the metrics exporter?"),
    ("coffee", "I drink a lot of coffee, usually three cups a day.", "I quit coffee completely; it was ruining my sleep.", "Does the user drink coffee?"),
    ("spicy", "The user likes spicy food.", "The user no longer eats spicy food because of stomach problems.", "Does the user like spicy food?"),
    ("running", "I enjoy running marathons.", "I don't run anymore after the knee surgery.", "Does the user still run?"),
    ("horror", "I love horror movies.", "Honestly I can't stand horror movies these days.", "How does the user feel about horror movies?"),
    ("notify", "The user wants email notifications for every build.", "The user does not want email notifications for builds.", "Should the user get email notifications for builds?"),
    ("early", "I'm fine with meetings before 9am.", "Please never schedule meetings before 9am for me.", "Can meetings be scheduled before 9am for the user?"),
    ("email", "My email is anna.kowalski@gmail.com.", "Please use my new address anna@kowalski.dev from now on.", "What is the user's email address?"),
    ("invoice", "Send invoices to billing@acme-old.com.", "Invoices should go to accounts@acme.io.", "Where should invoices be sent?"),
    ("support", "The support contact is help@tinyapp.io.", "Support moved to support@tinyapp.com.", "What is the support contact email?"),
    ("email", "You can reach me at j.doe@university.edu.", "I graduated, so my university mail is gone; write to johndoe88@proton.me.", "How can the user be reached by email?"),
    ("oncall", "The on-call alias is oncall@infra.example.org.", "On-call pages go to sre-pager@example.org since the reorg.", "Which address receives on-call pages?"),
    ("job", "I work as a data engineer at Spotify.", "I just joined Stripe as a platform engineer.", "Where does the user work?"),
    ("job", "The user is a high-school math teacher.", "The user left teaching and works as a UX researcher.", "What is the user's job?"),
    ("job", "I'm a nurse at St. Mary's hospital.", "Started my new position at Kaiser as a nurse practitioner this week.", "Which hospital or clinic does the user work at?"),
    ("job", "My role at the company is backend developer.", "I got promoted to engineering manager.", "What is the user's role at the company?"),
    ("job", "I freelance as a graphic designer.", "I took a full-time job at Canva as a brand designer.", "Is the user freelancing or employed?"),
    ("report", "The quarterly report is due on March 14.", "The quarterly report deadline got pushed to March 28.", "When is the quarterly report due?"),
    ("grant", "The grant application must be submitted by June 1.", "Good news: the grant deadline was extended to June 15.", "What's the deadline for the grant application?"),
    ("beta", "We plan to launch the beta on 2024-09-10.", "Beta launch slipped to 2024-10-01.", "When does the beta launch?"),
    ("thesis", "The thesis draft is due to my advisor on Friday.", "My advisor wants the thesis draft by Monday instead.", "When is the thesis draft due?"),
    ("contract", "The contract renewal needs a decision by the end of April.", "Legal says the contract renewal decision can wait until mid-May.", "By when must the contract renewal be decided?"),
    ("phone", "My phone number is +1 415 555 0134.", "New phone number: +1 415 555 0199.", "What is the user's phone number?"),
    ("landlord", "Call the landlord at 020 7946 0018.", "The landlord changed his number to 020 7946 0321.", "What is the landlord's phone number?"),
    ("phone", "My mobile is 0171 2345678.", "I switched carriers and got a new mobile number, 0152 8765432.", "What's the user's mobile number?"),
    ("desk", "The office front desk phone is (212) 555-0101.", "Front desk can be reached at (212) 555-0177 from Monday.", "What number reaches the office front desk?"),
    ("ci", "The team uses Jenkins for CI.", "We migrated CI from Jenkins to GitHub Actions.", "What CI system does the team use?"),
    ("docs", "Our docs are hosted on Confluence.", "Docs moved over to Notion last sprint.", "Where are the team's docs hosted?"),
    ("frontend", "The frontend is written in Vue 2.", "We rewrote the frontend in React.", "What framework is the frontend written in?"),
    ("deploy", "We deploy with Heroku.", "Deployments go to Fly.io instead of Heroku since June.", "Where does the team deploy?"),
    ("postgres", "The project uses PostgreSQL 14.", "We upgraded the database to PostgreSQL 16.", "Which PostgreSQL version does the project use?"),
    ("errors", "Error tracking is done in Sentry.", "We replaced Sentry with Rollbar for error tracking.", "What tool does the team use for error tracking?"),
    ("sync", "The weekly sync is on Tuesdays at 10:00.", "The weekly sync moved to Thursdays at 15:00.", "When is the weekly sync?"),
    ("gym", "I go to the gym on Monday and Wednesday evenings.", "My gym days are Tuesday and Saturday mornings these days.", "When does the user go to the gym?"),
    ("standup", "Standup starts at 9:15 every day.", "Standup is at 9:45 starting this week.", "What time is the daily standup?"),
    ("piano", "My piano lesson is every Saturday at 11.", "Piano lessons were rescheduled to Sunday at 4 pm.", "When is the user's piano lesson?"),
    ("manager", "My manager is Sarah Chen.", "Tom Becker is my new manager since the reorg.", "Who is the user's manager?"),
    ("budget", "The marketing budget for Q3 is $50,000.", "Q3 marketing budget was cut to $35,000.", "How big is the Q3 marketing budget?"),
    ("favlang", "My favourite programming language is Python.", "These days Rust is my favourite language.", "What is the user's favourite programming language?"),
    ("timezone", "I'm in the CET timezone.", "After the move I'm on Pacific time.", "What timezone is the user in?"),
    ("branch", "The default git branch is master.", "We renamed the default branch to main.", "What is the default git branch called?"),
    ("theme", "I use light mode in my editor.", "Switched my editor over to a dark theme.", "Does the user use light or dark mode in the editor?"),
    ("diet", "I'm vegetarian.", "I started eating meat again last year.", "Is the user vegetarian?"),
    ("car", "I drive a 2015 Honda Civic.", "Sold the Civic and bought a Tesla Model 3.", "What car does the user drive?"),
    ("os", "My laptop runs Ubuntu 22.04.", "I reinstalled my laptop with Fedora 40.", "Which operating system is on the user's laptop?"),
    ("teamsize", "The team has 6 engineers.", "After the new hires the team is 9 engineers.", "How many engineers are on the team?"),
    ("school", "My daughter's school is Lincoln Elementary.", "My daughter transferred to Oak Park Academy.", "Which school does the user's daughter attend?"),
    ("staging-url", "The staging URL is https://staging.shopfront.io.", "Staging lives at https://stage.shopfront.dev after the domain change.", "What is the staging URL?"),
    ("rent", "Our rent is $1,800 per month.", "The landlord raised our rent to $1,950 a month.", "How much is the user's rent?"),
    ("bank", "I bank with Chase.", "I closed my Chase account and moved everything to Ally.", "Which bank does the user use?"),
    ("wifi", "The Wi-Fi password at the office is sunflower42.", "IT rotated the office Wi-Fi password; it's bluebird77 now.", "What is the office Wi-Fi password?"),
    ("upload", "The max upload size is 10 MB.", "We raised the max upload size to 25 MB.", "What is the maximum upload size?"),
    ("learning", "I'm learning Spanish.", "I gave up on Spanish and started learning Japanese.", "Which language is the user learning?"),
    ("vet", "Our cat's vet is Dr. Alvarez.", "We switched the cat to a new vet, Dr. Nguyen.", "Who is the cat's vet?"),
]

ZH = [
    ("city", "我住在北京海淀区。", "我上个月搬到上海了，住在徐汇。", "用户住在哪个城市？"),
    ("city", "我家在成都。", "今年三月我们全家搬去了杭州。", "用户现在住在哪里？"),
    ("city", "用户目前住在深圳南山。", "用户已经从深圳搬到了广州天河。", "用户住在哪个城市？"),
    ("city", "我在南京工作和生活。", "我定居在苏州了。", "用户定居在哪里？"),
    ("city", "我住在武汉，离公司很近。", "为了孩子上学，我们搬到了长沙。", "用户家在哪个城市？"),
    ("city", "我现在住在天津。", "换了工作以后我搬到青岛住了。", "用户住在哪座城市？"),
    ("api-port", "API 服务监听 8080 端口。", "API 服务的端口改成了 9090。", "API 服务用的是哪个端口？"),
    ("test-db", "测试环境的数据库端口是 3306。", "测试库端口已调整为 3307，避免冲突。", "测试环境数据库的端口是多少？"),
    ("devserver", "前端开发服务器跑在 5173 端口。", "前端 dev server 换到 5174 端口了。", "前端开发服务器在哪个端口？"),
    ("nginx", "Nginx 对外暴露 80 端口。", "Nginx 只开放 443 端口，80 已关闭。", "Nginx 对外开放哪个端口？"),
    ("mq", "消息队列 RabbitMQ 使用 5672 端口。", "RabbitMQ 的端口从 5672 迁到了 5673。", "RabbitMQ 用的是什么端口？"),
    ("coriander", "我很喜欢吃香菜。", "我现在一点香菜都不吃了。", "用户吃香菜吗？"),
    ("coffee", "用户每天早上都要喝一杯咖啡。", "用户已经戒掉咖啡了，改喝绿茶。", "用户喝咖啡吗？"),
    ("hiking", "我喜欢周末去爬山。", "膝盖受伤以后我不再爬山了。", "用户周末还去爬山吗？"),
    ("horror", "我喜欢看恐怖片。", "最近我特别讨厌恐怖片，看了睡不着。", "用户喜欢恐怖片吗？"),
    ("notify", "用户希望每次构建都发邮件通知。", "用户不想再收到构建的邮件通知。", "构建完成后要给用户发邮件通知吗？"),
    ("spicy", "我能吃辣，越辣越好。", "医生让我忌口，我不能吃辣了。", "用户能吃辣吗？"),
    ("email", "我的邮箱是 zhangwei@163.com。", "以后请发到我的新邮箱 zhang.wei@outlook.com。", "用户的邮箱地址是什么？"),
    ("invoice", "发票请寄到 finance@oldco.cn。", "财务邮箱换了，发票请发 invoice@newco.com.cn。", "发票应该发到哪个邮箱？"),
    ("support", "客服联系邮箱是 service@xiaoshop.com。", "客服邮箱已更新为 kefu@xiaoshop.cn。", "客服邮箱是多少？"),
    ("email", "你可以通过 liming@pku.edu.cn 联系我。", "毕业了学校邮箱停用，请用 liming1998@qq.com 联系我。", "怎么通过邮件联系用户？"),
    ("oncall", "值班告警发送到 ops@company.cn。", "值班告警改发 sre-alert@company.cn。", "值班告警发到哪个邮箱？"),
    ("job", "我在腾讯做后端开发。", "我跳槽去了字节跳动，做推荐算法。", "用户在哪家公司工作？"),
    ("job", "用户是一名中学语文老师。", "用户辞去了教师工作，在出版社当编辑。", "用户现在做什么工作？"),
    ("job", "我在协和医院当护士。", "这周开始我到社区卫生服务中心上班了。", "用户在哪里上班？"),
    ("job", "我在公司的职位是测试工程师。", "我升职成测试组的组长了。", "用户在公司担任什么职位？"),
    ("job", "我是自由职业的插画师。", "我入职了网易，全职做游戏美术。", "用户目前是自由职业还是全职？"),
    ("report", "季度报告 3 月 14 日截止。", "季度报告的截止日期推迟到 3 月 28 日了。", "季度报告什么时候截止？"),
    ("grant", "基金申请书要在 6 月 1 日前提交。", "好消息，基金申请延期到 6 月 15 日。", "基金申请书的截止日期是哪天？"),
    ("beta", "产品计划在 9 月 10 日上线公测。", "公测时间延后到 10 月 1 日。", "产品什么时候公测？"),
    ("thesis", "论文初稿周五前要交给导师。", "导师说初稿下周一交就行。", "论文初稿什么时候交？"),
    ("contract", "合同续签要在四月底前决定。", "法务说合同续签可以等到五月中旬再定。", "合同续签最晚什么时候决定？"),
    ("phone", "我的手机号是 138 0013 8000。", "我换了新手机号：139 1234 5678。", "用户的手机号是多少？"),
    ("landlord", "房东的电话是 021-6234 5678。", "房东换号码了，新号码 021-6987 6543。", "房东电话是多少？"),
    ("desk", "公司前台电话 010-8888 6666。", "前台电话已变更为 010-8888 7777。", "公司前台的电话是多少？"),
    ("emergency", "紧急联系人是我妈妈，电话 135 0000 1111。", "紧急联系人的电话换成了 136 2222 3333。", "紧急联系人的电话是多少？"),
    ("ci", "团队用 Jenkins 做持续集成。", "我们把 CI 从 Jenkins 迁移到了 GitLab CI。", "团队用什么做持续集成？"),
    ("docs", "项目文档放在 Confluence 上。", "文档已经全部搬到飞书文档了。", "项目文档放在哪里？"),
    ("frontend", "前端是用 Vue 2 写的。", "前端已经用 React 重写了。", "前端用的什么框架？"),
    ("cloud", "服务部署在阿里云上。", "上个月服务全部迁到了腾讯云。", "服务部署在哪个云上？"),
    ("mysql", "项目用的是 MySQL 5.7。", "数据库升级到 MySQL 8.0 了。", "项目用的 MySQL 是哪个版本？"),
    ("chat", "团队用钉钉沟通。", "公司统一改用企业微信，不再用钉钉。", "团队用什么工具沟通？"),
    ("sync", "周会定在每周二上午 10 点。", "周会调到每周四下午 3 点了。", "周会是什么时候？"),
    ("gym", "我每周一和周三晚上去健身房。", "我改成周二和周六早上健身。", "用户什么时候去健身？"),
    ("standup", "每天站会 9 点 15 开始。", "从这周起站会改为 9 点 45。", "每日站会几点开始？"),
    ("piano", "孩子的钢琴课在每周六上午 11 点。", "钢琴课挪到周日下午 4 点了。", "孩子的钢琴课是什么时候？"),
    ("manager", "我的直属领导是王芳。", "组织调整后，我的新领导是李强。", "用户的领导是谁？"),
    ("budget", "第三季度市场预算是 50 万元。", "Q3 市场预算被砍到 35 万元。", "第三季度市场预算是多少？"),
    ("favlang", "我最喜欢的编程语言是 Python。", "我更喜欢用 Go 写代码了。", "用户最喜欢哪种编程语言？"),
    ("branch", "默认分支叫 master。", "我们把默认分支重命名为 main。", "默认分支叫什么名字？"),
    ("theme", "我在编辑器里用浅色主题。", "我把编辑器换成深色主题了。", "用户编辑器用浅色还是深色主题？"),
    ("diet", "我吃素。", "我去年开始又吃肉了。", "用户吃素吗？"),
    ("car", "我开的是一辆 2015 年的本田思域。", "思域卖掉了，换了一辆比亚迪汉。", "用户开什么车？"),
    ("os", "我的笔记本装的是 Windows 10。", "笔记本重装成了 Ubuntu 24.04。", "用户的笔记本是什么系统？"),
    ("teamsize", "团队有 6 名工程师。", "新人入职后团队扩到了 9 名工程师。", "团队有多少工程师？"),
    ("school", "女儿在实验小学上学。", "女儿转学到了外国语学校。", "用户的女儿在哪所学校上学？"),
    ("staging-url", "测试环境地址是 https://test.shop.cn。", "测试环境迁到了 https://staging.shop.cn。", "测试环境的地址是什么？"),
    ("rent", "我们每月房租 5000 元。", "房东把房租涨到每月 5500 元。", "用户每月房租多少？"),
    ("bank", "我的工资卡是工商银行的。", "工资卡换成招商银行了。", "用户的工资卡是哪家银行的？"),
    ("wifi", "办公室 Wi-Fi 密码是 sunflower42。", "IT 改了办公室 Wi-Fi 密码，现在是 bluebird77。", "办公室 Wi-Fi 密码是什么？"),
    ("upload", "上传文件大小上限是 10 MB。", "文件上传上限提高到 25 MB 了。", "上传文件最大多大？"),
    ("learning", "我在学日语。", "日语放弃了，最近开始学法语。", "用户在学什么语言？"),
    ("vet", "猫的兽医是陈医生。", "猫换了家宠物医院，由刘医生看。", "猫的兽医是谁？"),
    ("commute", "我每天骑自行车上班。", "最近我改坐地铁通勤了。", "用户怎么上班？"),
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

UNRELATED = 34
WINDOW_DAYS = 200


def stamp(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def scenario(rng, lang, n, topic, old, new, question, pool, prefix="fc"):
    """One scenario's records. `topic` is a key, or a tuple of keys, whose unrelated memories are
    left out; the held-out generators (`facts_change_holdout*.py`) call this too."""
    namespace = f"{prefix}-{lang}-{n:02d}"
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


def write_held_out(seed, prefix, en, zh, en_pool, zh_pool):
    """Prints a held-out set (`facts_change_holdout*.py`): 40 scenarios per language, each by
    `scenario` with `prefix`, after checking that no distractor repeats or says "user"/"用户"
    and that no scenario text repeats."""
    rng = random.Random(seed)
    assert len(en) == 40 and len(zh) == 40
    for lang, scenarios, pool in [("en", en, en_pool), ("zh", zh, zh_pool)]:
        assert len({text for _, text in pool}) == len(pool), f"{lang}: repeated distractor"
        assert not any("user" in text.lower() or "用户" in text for _, text in pool), f"{lang}: 'user' in a distractor"
        texts = [t for _, old, new, q in scenarios for t in (old, new, q)]
        assert len(set(texts)) == len(texts), f"{lang}: repeated scenario text"
        for n, (topic, old, new, question) in enumerate(scenarios, 1):
            for line in scenario(rng, lang, n, topic, old, new, question, pool, prefix):
                print(json.dumps(line, ensure_ascii=False))


def main():
    rng = random.Random(15)
    assert len(EN) >= 50 and len(ZH) >= 50
    for lang, scenarios, pool in [("en", EN, EN_OTHER), ("zh", ZH, ZH_OTHER)]:
        assert len({text for _, text in pool}) == len(pool), f"{lang}: repeated distractor"
        for n, (topic, old, new, question) in enumerate(scenarios, 1):
            for line in scenario(rng, lang, n, topic, old, new, question, pool):
                print(json.dumps(line, ensure_ascii=False))


if __name__ == "__main__":
    main()
