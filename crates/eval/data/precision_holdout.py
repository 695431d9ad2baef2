#!/usr/bin/env python3
"""Held-out precision evaluation set for a long-term memory server.

Writes precision_holdout.jsonl next to this script.  Deterministic: fixed seed,
stdlib only, byte-identical output on every run (Python 3.11).

Each pool memory carries: a coarse, language-neutral topic (two memories with the
same topic never share a namespace), its text, a keyword query (with the
distinctive term(s) that must appear in the memory and in no other memory of the
namespace), a paraphrase query, and a cross-language query.  Absent questions
carry the topics they would collide with and the terms that must not appear in
any memory of the namespace.
"""
import json
import os
import random
from datetime import datetime, timedelta

SEED = 20250611
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "precision_holdout.jsonl")

MEMS = []
BAD = []


def _add(lang, topic, text, kw, para=None, cross=None, ch=False):
    if isinstance(kw, str):
        q, terms = kw, [kw]
    else:
        q, terms = kw
        if isinstance(terms, str):
            terms = [terms]
    for t in terms:
        if t.lower() not in text.lower():
            BAD.append((t, text))
    MEMS.append(dict(lang=lang, topic=topic.split()[0], topics=set(topic.split()), text=text, kw=q, terms=[t.lower() for t in terms],
                     para=para, cross=cross, ch=bool(ch)))


def Z(topic, text, kw, para=None, cross=None, ch=False):
    _add("zh", topic, text, kw, para, cross, ch)


def E(topic, text, kw, para=None, cross=None, ch=False):
    _add("en", topic, text, kw, para, cross, ch)


# --------------------------------------------------------------------------
# Software team: conventions and infrastructure
# --------------------------------------------------------------------------
Z("db", "项目的主数据库是 PostgreSQL 15，端口 5433，部署在 db-prod-01 上。", ("PostgreSQL 端口", "PostgreSQL"),
  "线上存业务记录的那套服务连哪台机器的哪个口？", "Which port does our main Postgres instance listen on?")
Z("db", "订单库已经从 MySQL 迁到了 TiDB，旧的 MySQL 实例月底下线。", "TiDB",
  "交易记录现在存在哪个系统里？", "What did we move the order database to?", ch=1)
E("db", "Production data lives in MongoDB 6 on host mongo-a.internal, port 27017.", "MongoDB",
  "Which machine runs our document store?", "生产环境的数据放在哪台主机上？")
E("db", "We switched the analytics warehouse from Redshift to ClickHouse last spring.", "ClickHouse",
  "What column store powers our reporting now?", "分析数仓现在用的是什么？", ch=1)

Z("ci", "团队的持续集成用的是 GitLab CI，流水线配置在 .gitlab-ci.yml 里。", "GitLab CI",
  "每次提交后自动跑构建的是哪个系统？", "Which CI system does the team use?")
Z("ci", "我们不再用 Jenkins 了，现在所有构建都跑在 GitHub Actions 上。", "Jenkins",
  "自动打包和跑测试现在靠什么工具？", "What do we use for builds now instead of Jenkins?", ch=1)
E("ci", "CI runs on Buildkite, and a full pipeline takes about twelve minutes.", "Buildkite",
  "How long until a commit is completely checked by the automated system?", "完整构建一次大概要多久？")
E("ci", "Nightly builds kick off at 02:00 UTC and post results to #build-status.", ("nightly builds", "nightly"),
  "When do the overnight compile jobs start?", "每晚的自动构建几点开始？")

Z("deploy", "每周四下午三点是固定的上线窗口，周五一律不发版。", "上线窗口",
  "一周里哪天可以把新版本推到生产？", "Which day of the week do we release to production?")
Z("deploy", "发布流程改了：以前手动跑脚本，现在合并到 main 后由 Argo CD 自动部署。", "Argo CD",
  "代码合进去之后是怎么推到线上的？", "How do deployments happen now after merging to main?", ch=1)
E("deploy", "Code freeze starts December 18; no production deploys until January 3.", "code freeze",
  "When are we blocked from shipping over the holidays?", "年底什么时候开始禁止上线？")
E("deploy", "Staging deploys happen on every merge; production needs manual approval from Priya.", ("Priya approval", "Priya"),
  "Who has to sign off before we ship to live?", "生产环境发布需要谁批准？")

Z("branching", "分支命名规范：功能分支用 feat/ 开头，修复分支用 fix/ 开头。", "分支命名",
  "新建开发线时名字前缀有什么讲究？", "What prefix should feature branches use?")
Z("branching", "团队已经从 git-flow 改成主干开发，不再保留 develop 分支。", "git-flow",
  "我们现在的代码合并模式是怎样的？", "Do we still keep a develop branch?", ch=1)
E("branching", "All merges into main must be squash merges; rebase your branch before opening a PR.", "squash",
  "How should commits be combined when landing changes?", "合并到 main 要用什么方式？")
E("branching", "Release branches are named release/YYYY.MM and cut on the first Monday of each month.", "release branches",
  "When is the monthly version line split off?", "发布分支什么时候切出来？")

Z("code-style", "Python 代码统一用 black 格式化，行宽 100，提交前跑 ruff 检查。", "ruff",
  "写脚本时一行最多能写多少字符？", "What line length does our Python formatter use?")
Z("code-style", "前端缩进规范从 4 个空格改成了 2 个空格，Prettier 配置已经更新。", "Prettier",
  "网页那边的代码现在每级退几格？", "How many spaces do we indent frontend code with now?", ch=1)
E("code-style", "Go services follow the Uber style guide and must pass golangci-lint before merge.", "golangci-lint",
  None, "Go 服务遵循哪个代码规范？")
E("code-style", "The user prefers tabs over spaces and hates trailing commas in JavaScript.", "trailing commas",
  "What indentation character does the user like?", "用户喜欢用 tab 还是空格缩进？")

Z("oncall", "值班表每周一上午十点轮换，本周是小刘负责告警。", "值班表",
  "这周出了线上问题该找谁？", "Who is on call this week?")
Z("oncall", "夜间告警不再打电话给个人，现在统一转到 PagerDuty 的二线组。", "PagerDuty",
  "半夜系统出故障时通知会发给谁？", "Where do night-time alerts get routed now?", ch=1)
E("oncall", "On-call engineers get a $200 stipend per week of pager duty.", "stipend",
  "What's the extra pay for a week of being reachable at night for outages?", "值班一周有多少补贴？")
E("oncall", "Incident postmortems are due within five business days and go in the Confluence Incidents space.", "postmortems",
  "Where do we write up what went wrong after an outage?", "事故复盘文档要在几天内写完？")

Z("monitoring", "监控面板在 Grafana 上，地址是 grafana.corp.local:3000。", "Grafana",
  "看服务指标图表的网址是什么？", "What's the URL of our metrics dashboard?")
Z("monitoring", "错误追踪从 Sentry 换成了自建的 GlitchTip，项目 key 不变。", "GlitchTip",
  "报错收集现在用的哪个平台？", "Which error tracker do we use now?", ch=1)
E("monitoring", "Logs are shipped to Loki and kept for 14 days before deletion.", "Loki",
  "How long do we retain application output records?", "日志保留多少天？")
E("monitoring", "Uptime checks hit /healthz every 30 seconds from three regions.", "healthz",
  "How often is service availability probed?", "健康检查多久跑一次？")

Z("cache", "缓存用 Redis 7，地址 10.0.3.15:6380，默认过期时间 30 分钟。", ("Redis 过期时间", "Redis"),
  "临时存热点数据那一层多久失效？", "What's the default TTL for our cache?")
Z("cache", "首页接口加了本地缓存，命中率从 60% 提升到了 92%。", "命中率",
  "主页请求加了那层之后效果提升了多少？", "What's the homepage cache hit rate now?", ch=1)
E("cache", "The CDN is Cloudflare; static assets are cached for one week.", "Cloudflare",
  "How long are images and scripts kept at the edge?", "静态资源在 CDN 上缓存多久？")
E("cache", "We replaced Memcached with Redis for session storage in March.", "Memcached",
  "Where do we keep user sign-in state now?", "会话存储现在用什么？", ch=1)

Z("cloud", "生产环境部署在阿里云杭州区域，用的是 ECS 和 RDS。", "阿里云",
  "线上服务托管在哪家厂商的哪个地区？", "Which cloud region is production in?")
Z("cloud", "服务器从腾讯云整体迁到了华为云，迁移在五一假期完成。", "华为云",
  "我们的主机现在租的是哪家的？", "Which cloud provider did we migrate to?", ch=1)
E("cloud", "Our AWS account runs in us-east-1; the staging account is separate.", "us-east-1",
  "Which Amazon region do we use?", "我们的 AWS 用的是哪个区域？")
E("cloud", "Monthly cloud spend is capped at $8,000, with alerts at 80 percent.", "cloud spend",
  "What's the ceiling on what we pay for hosting each month?", "每月云费用上限是多少？")

Z("api-auth", "对外 API 统一用 JWT 鉴权，token 有效期 2 小时。", "JWT",
  "外部接口的登录凭证多久过期？", "How long are API tokens valid?")
Z("api-auth", "开放接口的版本已经从 v1 升到 v2，v1 会保留到年底。", ("开放接口版本", "开放接口"),
  "对外服务现在最新是第几版？", "Which public API version is current?", ch=1)
E("api-auth", "Internal services authenticate with mTLS certificates issued by our own CA.", "mTLS",
  "How do our backend services prove their identity to each other?", "内部服务之间用什么方式认证？")
E("api-auth", "The public API is rate limited to 600 requests per minute per key.", "rate limited",
  "How many calls can a client make each minute?", "公开 API 每分钟限多少次请求？")

Z("runtime", "后端服务统一用 Java 17，Spring Boot 版本是 3.2。", "Spring Boot",
  "后台那套系统用的哪个语言版本？", "Which Java version do backend services use?")
Z("runtime", "Node 版本从 16 升级到了 20，package.json 的 engines 字段已改。", ("Node 版本", "Node 版本"),
  "前端构建用的 JS 运行环境现在是第几版？", "What Node version are we on now?", ch=1)
E("runtime", "All Python services were upgraded from 3.9 to 3.11 last quarter.", ("python version", "python"),
  None, "Python 服务现在是哪个版本？", ch=1)
E("runtime", "The mobile app targets iOS 16 and Android API level 26 as minimums.", ("minimum iOS", "iOS"),
  "What's the oldest phone OS our app supports?", "App 最低支持哪个 iOS 版本？")

Z("frontend", "管理后台前端用 Vue 3 加 Element Plus，打包工具是 Vite。", "Element Plus",
  "运营同学操作的网页系统是拿什么框架写的？", "What framework is the admin panel built with?")
Z("frontend", "官网不再用 jQuery，已经用 React 重写完了。", "jQuery",
  "公司主页的页面代码现在基于什么库？", "What was the company website rewritten in?", ch=1)
E("frontend", "The design system lives in Storybook at design.example.dev.", "Storybook",
  "Where can I browse our shared UI components?", "设计系统的组件在哪里看？")
E("frontend", "We moved CSS from Sass to Tailwind across the customer portal.", "Tailwind",
  "How is styling done in the client-facing web app now?", "客户门户现在用什么写样式？", ch=1)

Z("code-review", "合并请求至少需要两个人 approve，其中一个必须是模块负责人。", "approve",
  "代码合进去前要几个人同意？", "How many approvals does a merge request need?")
Z("code-review", "代码评审的时效要求：提交后 24 小时内必须有人给出意见。", "代码评审",
  "别人提交的改动我最晚多久要看？", "How quickly must code reviews be done?")
E("code-review", "PRs over 400 changed lines must be split before anyone reviews them.", ("PRs over 400 lines", "400 changed lines"),
  "How big can a change be before it must be broken up?", "PR 超过多少行需要拆分？")
E("code-review", "Marco reviews every database migration before it merges.", ("migration review", "migration"),
  "Who checks schema changes before they land?", "数据库迁移的改动由谁审核？")

Z("standup", "每天早上 9:30 开站会，时长不超过 15 分钟。", "站会",
  "每日碰头几点开始？", "What time is the daily standup?")
Z("standup", "周会从周一下午挪到了周二上午十点，会议室改在 3 楼。", "周会",
  "每周例会现在是什么时间？", "When is the weekly team meeting now?", ch=1)
E("standup", "Sprint planning happens every other Monday at 2 pm in the Orion room.", "sprint planning",
  "When do we plan the next two weeks of work?", "迭代计划会什么时候开？")
E("standup", "The retro moved from Friday afternoons to Thursday mornings.", "retro",
  "When do we hold our look-back session on how the iteration went?", "回顾会改到什么时候了？", ch=1)

Z("access", "连公司内网要先开 WireGuard，配置文件找 IT 小林要。", "WireGuard",
  "在家办公怎么接入公司网络？", "How do I connect to the office network from home?")
Z("access", "跳板机地址是 bastion.corp.cn，登录端口从 22 改成了 2222。", "跳板机",
  "登录中转服务器现在用哪个口？", "What port does the bastion host use now?", ch=1)
E("access", "SSH keys must be ed25519; RSA keys are no longer accepted on prod servers.", "ed25519",
  "What kind of credential pair do I need to log into live machines?", "生产服务器接受什么类型的 SSH 密钥？", ch=1)
E("access", "Okta is the single sign-on provider for all internal tools.", "Okta",
  "Which service handles one login for every company app?", "内部工具的单点登录用什么？")

Z("queue", "消息队列用 RocketMQ，订单事件的 topic 叫 order-events。", "RocketMQ",
  "下单后的事件通过什么中间件传递？", "Which message queue carries order events?")
Z("queue", "异步任务框架从 Celery 换成了 Dramatiq，worker 数量是 8。", "Celery",
  "后台排队执行的活儿现在用的是什么库？", "What replaced Celery for background jobs?", ch=1)
E("queue", "Kafka has three brokers; topic retention is seven days.", "Kafka",
  "How long do events stay in our streaming platform?", "Kafka 的消息保留几天？")
E("queue", "Failed jobs go to a dead-letter queue and are retried up to five times.", "dead-letter",
  "What happens to background tasks that keep erroring?", "失败的任务会重试几次？")

Z("testing", "单元测试覆盖率要求不低于 80%，低于这个数流水线会失败。", "覆盖率",
  "写的用例要占多少比例才能通过检查？", "What's the minimum unit test coverage?")
Z("testing", "端到端测试从 Selenium 改用 Playwright，跑一遍大约 7 分钟。", "Playwright",
  "浏览器自动化用例现在用什么工具跑？", "Which end-to-end testing tool do we use now?", ch=1)
E("testing", "Load tests use k6 and must sustain 2,000 requests per second.", ("k6 load test", "k6"),
  "What throughput must the service handle under stress?", "压测要达到每秒多少请求？")
E("testing", "Flaky tests get tagged @quarantine and must be fixed within one sprint.", "quarantine",
  "How do we handle checks that pass and fail unpredictably?", "不稳定的测试怎么处理？")

Z("secrets", "所有密钥都放在 HashiCorp Vault 里，禁止写进代码仓库。", "HashiCorp Vault",
  "密码和 token 应该存在哪？", "Where should we store secrets?")
Z("secrets", "数据库密码每 90 天强制轮换一次，由运维统一操作。", "轮换",
  "库的登录口令多久换一次？", "How often are database passwords rotated?")
E("secrets", "API keys for third-party services are stored in 1Password under the Engineering vault.", "1Password",
  "Where do I find credentials for external vendors?", "第三方服务的 API key 存在哪里？")
E("secrets", "We stopped using .env files in production; secrets now come from AWS Secrets Manager.", "Secrets Manager",
  "How do live servers get their sensitive config now?", "生产环境的密钥现在从哪里读取？", ch=1)

Z("registry", "Docker 镜像推到 Harbor，地址 harbor.corp.cn，项目名 backend。", "Harbor",
  "打好的容器包上传到哪个仓库？", "Where do we push Docker images?")
Z("registry", "基础镜像从 CentOS 换成了 Debian slim，体积小了一半。", "基础镜像",
  "容器用的底层系统现在是哪个发行版？", "What base image do containers use now?", ch=1)
E("registry", "Container images are tagged with the git commit SHA, never with latest.", ("image tag SHA", "SHA"),
  "How are built artifacts versioned when we publish them?", "镜像的标签用什么命名？")
E("registry", "Our npm packages are published to a private Verdaccio registry.", "Verdaccio",
  "Where do our in-house JS libraries get uploaded?", "内部 npm 包发布到哪里？")

Z("domain-cert", "公司域名 example.cn 的 SSL 证书 11 月 20 日到期，要提前续。", "SSL 证书",
  "网站的加密凭证什么时候过期？", "When does the SSL certificate expire?")
Z("domain-cert", "DNS 解析从 DNSPod 迁到了 Route 53，TTL 设为 300 秒。", "DNSPod",
  "域名指向的配置现在放在哪家？", "Where is DNS hosted now?", ch=1)
E("domain-cert", "The company domain is registered with Namecheap and auto-renews every March.", "Namecheap",
  "Which registrar holds our web address?", "公司域名在哪家注册的？")
E("domain-cert", "TLS certificates come from Let's Encrypt and cert-manager renews them every 60 days.", "Let's Encrypt",
  "Who signs the encryption credentials for our websites?", "TLS 证书由谁签发？")

Z("versioning", "版本号遵循语义化版本，破坏性改动必须升主版本号。", "语义化版本",
  "接口不兼容时编号里哪一位要加一？", "How do we number versions when there's a breaking change?")
Z("versioning", "App 当前线上版本是 4.8.2，下一个版本 4.9 计划加暗黑模式。", "暗黑模式",
  "手机应用下一版有什么新功能？", "What feature is planned for app version 4.9?")
E("versioning", "The changelog is generated from conventional commit messages by release-please.", "release-please",
  "How is our per-version list of what changed produced?", "变更日志是怎么生成的？")
E("versioning", "The desktop client is on version 2.14; auto-update checks run every six hours.", "desktop client",
  "How often does the PC app look for new releases?", "桌面客户端多久检查一次更新？")

Z("tracker", "需求和缺陷都记在 Jira，项目代号是 PAY。", "Jira",
  "要报 bug 应该去哪个平台？", "Where do we track bugs and requirements?")
Z("tracker", "任务管理从 Trello 换成了飞书项目，旧看板只读。", "Trello",
  "团队现在用什么管理待办？", "What replaced Trello for task tracking?", ch=1)
E("tracker", "We moved issue tracking from Jira to Linear in January.", "Linear",
  "Where do we log bugs now?", "我们现在用什么跟踪问题单？", ch=1)
E("tracker", "Bugs labeled P0 must be acknowledged within 15 minutes.", ("P0 bugs", "P0"),
  "How fast must the most severe defects get a response?", "P0 级别的缺陷要多快响应？")

Z("backup", "数据库每天凌晨两点全量备份，保留 30 天，存到 OSS。", "全量备份",
  "线上库多久存一份副本、留多久？", "How long are the daily backups kept?")
Z("backup", "家里的照片备份不再放移动硬盘，已经改用群晖 NAS 自动同步。", "群晖",
  "家里的相片现在存到哪了？", "Where are family photos backed up now?", ch=1)
E("backup", "My laptop backs up to Backblaze every night at 1 am.", "Backblaze",
  "What service keeps a copy of my computer's files?", "我的笔记本备份到哪里？")
E("backup", "Restore drills happen quarterly; the last one took 47 minutes.", "restore drills",
  "How long did our last recovery practice take?", "上次恢复演练花了多长时间？")

Z("incident-chat", "线上故障统一在飞书群“P0 应急”里同步，不要私聊。", "应急",
  "出事故的时候在哪个群沟通？", "Which chat group handles production incidents?")
E("incident-chat", "Outage updates go to the #incident Slack channel, and the status page is refreshed every 30 minutes.", "status page",
  "Where do we communicate when the site is down?", "故障期间在哪个频道同步？")

Z("flags", "功能开关统一用 Unleash 管理，新功能上线默认先关闭。", "Unleash",
  "新特性灰度是用什么工具控制的？", "What tool manages our feature flags?")
E("flags", "Feature flags older than 90 days must be cleaned up from the codebase.", "feature flags",
  "When must stale toggles be removed?", "功能开关多久后必须清理？")

Z("search", "站内搜索用 Elasticsearch 8，索引每天凌晨重建一次。", "Elasticsearch",
  "网站查找功能背后的库多久刷新一次？", "How often is the search index rebuilt?")
E("search", "We replaced Solr with OpenSearch for product search last year.", "OpenSearch",
  "What powers item lookup on the site now?", "商品搜索现在用什么引擎？", ch=1)

Z("k8s", "生产集群是 Kubernetes 1.28，一共 12 个节点。", "Kubernetes",
  "线上容器编排平台有多少台机器？", "How many nodes are in the production cluster?")
E("k8s cloud", "Staging runs on a single k3s node in the server closet.", "k3s",
  "What does our pre-production environment run on?", "预发布环境跑在什么上面？")

Z("docs", "技术文档统一写在语雀的“研发”知识库里。", "语雀",
  "开发资料放在哪个平台？", "Where do we keep technical documentation?")
Z("docs", "接口文档从 Swagger 迁到了 Apifox，旧链接会自动跳转。", "Apifox",
  "开发者查的 API 说明现在放在哪？", "Where are the API docs hosted now?", ch=1)
E("docs", "Architecture decisions are recorded as ADRs in the docs/adr folder.", "ADR",
  "Where do we write down why we made big design choices?", "架构决策记录放在哪？")

Z("training", "每年 9 月要完成一次信息安全培训，不完成会锁账号。", "信息安全培训",
  "哪个年度课程不上完会被封号？", "When is the annual security training due?")
E("training", "New hires must complete the GDPR training in their first week.", "GDPR",
  "What privacy course do newcomers take right away?", "新员工第一周要完成什么培训？")

# --------------------------------------------------------------------------
# Work life
# --------------------------------------------------------------------------
Z("office", "我的工位在 7 楼靠窗，编号 7F-032。", "工位",
  "我在公司坐哪儿？", "Where is my desk?")
E("office", "The Berlin office moved to a four-day week and is closed on Fridays now.", "Berlin office",
  "Which weekday is the German site shut?", "柏林办公室周五还开吗？", ch=1)
E("office", "The printer on the 3rd floor needs badge release; the code is 4471.", "printer",
  "How do I get my documents to come out of the machine upstairs?", "三楼打印机的密码是多少？")

Z("manager", "我的直属领导从老张换成了 Lisa，汇报改成每两周一次 1on1。", "1on1",
  "我现在的上级是谁？", "Who is my manager now?", ch=1)
E("manager", "My manager, Dana, prefers updates in writing rather than meetings.", "Dana",
  "How does my boss like to be kept informed?", "我的领导喜欢怎样的汇报方式？")
E("manager", "Performance reviews happen in June and December; self-assessments are due two weeks before.", "performance reviews",
  "When is my evaluation cycle at work?", "绩效评估在几月？")

Z("leave", "今年年假还剩 6 天，要在 12 月底前休完。", "年假",
  "我今年还有几天带薪假没用？", "How many days of annual leave do I have left?")
E("leave", "I have 12 PTO days left and plan to take Thanksgiving week off.", "PTO",
  "How much paid time away from work do I have remaining?", "我今年还剩多少天假？")

Z("payday", "工资每月 10 号发，遇到周末就提前到周五。", "工资",
  "每月几号发薪？", "What day is payday?")
E("payday", "Payroll switched from monthly to biweekly starting this quarter.", "payroll",
  "How often do I get paid now?", "现在多久发一次工资？", ch=1)

Z("expense", "出差报销要在回来 7 天内提交，发票贴在单子背面。", "报销",
  "公务出行花的钱要多久内申请退回？", "How soon must travel expenses be submitted?")
E("expense", "Meal expenses on business trips are capped at $60 a day.", "meal expenses",
  "How much can I spend on food per day when traveling for work?", "出差每天餐费上限多少？")

Z("canteen", "公司食堂中午 11:30 开饭，周三有免费水果。", "食堂",
  "单位吃饭的地方几点开？", "What time does the company cafeteria open for lunch?")
E("canteen", "The office cafeteria stopped serving breakfast; it now opens at 11 for lunch only.", "cafeteria",
  "Can I still get a morning meal at work?", "公司餐厅还供应早餐吗？", ch=1)

Z("job", "用户是一家电商公司的产品经理，负责会员体系。", "产品经理",
  "用户是做什么工作的？", "What is the user's job?")
Z("job", "我上个月从外企跳槽到了一家创业公司，做后端开发。", "跳槽",
  "我现在在哪种单位上班？", "What kind of company did I just join?", ch=1)
E("job", "The user works as an ICU nurse and does night shifts three times a week.", "ICU",
  "What does the user do for a living?", "用户的职业是什么？")

Z("commute", "上班坐地铁 2 号线，单程 50 分钟，在人民广场换乘。", "2 号线",
  "我去单位路上要多久？", "How long is my commute?")
Z("commute", "公司搬到了望京，通勤从半小时变成了一个多小时。", "望京",
  "办公室迁走后我每天路上要花多久？", "Where did the office move to?", ch=1)
E("commute", "The user bikes to work three days a week, about 12 km each way.", ("bikes to work", "bikes to work"),
  "How far is the user's ride to the office?", "用户骑车上班单程多远？")

# --------------------------------------------------------------------------
# Household
# --------------------------------------------------------------------------
Z("pet", "我家的猫叫年糕，是一只三岁的橘猫。", "年糕",
  "家里那只毛孩子叫什么名字？", "What's my cat's name?")
Z("pet", "狗粮从皇家换成了渴望，狗狗肠胃不好要慢慢过渡。", "狗粮",
  "家里那只汪现在吃什么牌子的饭？", "What dog food brand did we switch to?", ch=1)
Z("pet", "猫砂换成了豆腐猫砂，每周日全部更换一次。", "猫砂",
  "主子的厕所填料多久全换？", "How often do I change the cat litter?", ch=1)
E("pet", "Our dog Biscuit is a beagle and needs his rabies shot renewed in October.", "Biscuit",
  "When is the pup due for his next vaccine?", "狗狗的狂犬疫苗什么时候要打？")
E("pet", "The user's parrot, Kiwi, only eats sunflower seeds and apple slices.", "Kiwi",
  "What does the user's bird eat?", "用户的鹦鹉吃什么？")
E("pet", "We no longer use the dog walker; the neighbor's son takes Rex out now.", "dog walker",
  "Who takes our pup out for exercise these days?", "现在谁帮忙遛狗？", ch=1)

Z("kids-school", "女儿在实验小学读三年级，班主任是王老师。", "实验小学",
  "孩子在哪所学校上学？", "Which school does my daughter attend?")
Z("kids-school", "儿子放学时间从 4 点改到了 4 点半，周三是 3 点。", "放学",
  "孩子几点可以去接？", "What time does my son finish school now?", ch=1)
Z("kids-school", "孩子班级的家长群是班主任建的钉钉群，通知都在里面发。", "钉钉",
  "老师发的消息在哪个群里看？", "Where does the teacher post class announcements?")
E("kids-school", "Emma's teacher is Mr. Alvarez, and parent-teacher conferences are in November.", "Alvarez",
  "Who teaches my daughter's class?", "Emma 的老师是谁？")
E("kids-school", "Leo switched from the bus to carpooling with the Nguyens on school days.", "carpooling",
  "What's the kid's new way of getting to class each morning?", "Leo 现在怎么去学校？", ch=1)

Z("kids-activity", "儿子每周六上午十点上钢琴课，老师姓陈，一节课 300 元。", "钢琴课",
  "孩子学乐器一次多少钱？", "How much is my son's piano lesson?")
Z("kids-activity", "女儿的游泳课不再去体育馆，改到小区会所的泳池了。", "游泳课",
  "孩子的水上课程现在在哪上？", "Where are my daughter's swimming lessons now?", ch=1)
E("kids-activity", "Mia has soccer practice Tuesdays and Thursdays at 5 pm at Riverside Park.", "soccer",
  "Which evenings is my daughter's team training?", "Mia 什么时候练足球？")
E("kids-activity", "The kids' art class costs $120 a month, paid on the first.", "art class",
  "How much do the children's drawing lessons cost?", "孩子的美术课每月多少钱？")

Z("medical", "牙医是仁爱诊所的刘医生，下次洗牙约在 3 月 12 日。", "洗牙",
  "下次口腔清洁约在哪天？", "When is my next dental cleaning?")
Z("medical", "用户的家庭医生换成了社区医院的赵医生，之前的李医生退休了。", "赵医生",
  "用户现在的全科大夫是谁？", "Who is the user's family doctor now?", ch=1)
Z("medical", "近视 450 度，散光 75 度，眼镜是去年底刚配的。", "散光",
  "我眼睛的度数是多少？", "What's my eyeglass prescription?")
E("medical", "My eye exam is booked with Dr. Patel on the 14th at 9:40.", "eye exam",
  "When do I get my vision checked?", "我的眼科检查约在几号？")
E("medical", "Physical therapy for my knee is every Monday and Wednesday at 6 pm.", "physical therapy",
  "When are my rehab sessions for the injured joint?", "膝盖理疗是什么时间？")
E("medical", "Lily's pediatrician is Dr. Hsu at Bayview Clinic.", "pediatrician",
  "Who is the children's physician for my little girl?", "Lily 的儿科医生是谁？")

Z("allergy", "用户对花生严重过敏，点餐时一定要提醒。", "花生",
  "用户有什么绝对不能碰的坚果？", "What is the user severely allergic to?")
Z("allergy", "我对青霉素过敏，看病时要告诉医生。", "青霉素",
  "我不能用哪种抗生素？", "Which antibiotic am I allergic to?")
E("allergy", "The user is allergic to penicillin and should never be prescribed it.", "penicillin",
  "Which antibiotic can't the user take?", "用户对什么药过敏？")
E("allergy", "My son is allergic to shellfish, so no shrimp or crab at dinner.", "shellfish",
  "Which seafood must my boy avoid?", "我儿子对什么过敏？")

Z("chores", "小区周二和周五收厨余垃圾，其他垃圾每天都收。", "厨余垃圾",
  "湿的那类废弃物哪几天可以扔？", "Which days is food waste collected?")
Z("chores", "家务分工调整了：以前我洗碗，现在我负责拖地，洗碗归老公。", "拖地",
  "家里清洁活现在怎么分的？", "Who does the dishes now?", ch=1)
Z("chores", "每个月第一个周日大扫除，窗户和油烟机一起清洗。", "大扫除",
  "全屋彻底清洁是哪天？", "When do we do the big monthly cleaning?")
E("chores", "Recycling pickup is every other Wednesday; bins go out the night before.", "recycling",
  "When do the cans and paper get collected?", "回收垃圾哪天收？")
E("chores", "Jake mows the lawn on Saturdays and gets $15 for it.", ("lawn mowing", "lawn"),
  "Who cuts the grass and how much is he paid?", "谁负责割草？")

Z("plants", "阳台的龟背竹每周浇一次水，夏天改成每周两次。", "龟背竹",
  "那棵大叶绿植多久需要喝一次？", "How often should I water the monstera?")
Z("plants", "我把多肉从客厅挪到了南边的窗台，之前光照不够。", "多肉",
  "那些肉乎乎的小盆栽现在放哪了？", "Where did I move the succulents?", ch=1)
E("plants", "The tomato plants in the backyard need fertilizer every two weeks.", "tomato",
  "How often do the vegetables out back get fed?", "后院的番茄多久施一次肥？")
E("plants", "The orchid on my desk gets three ice cubes every Sunday.", "orchid",
  "How do I water the flower at my workstation?", "桌上的兰花怎么浇水？")

Z("car", "车子下次保养在 15000 公里，去 4S 店找服务顾问小吴。", "保养",
  "爱车下一回维护是什么时候？", "When is the car's next service due?")
Z("car", "车险已经从平安换到了人保，保单 6 月到期。", "车险",
  "我的座驾现在由哪家公司承保？", "Which company insures the car now?", ch=1)
Z("car", "周一限行尾号 1 和 6，我的车尾号是 6。", "限行",
  "哪天我不能开车上路？", "Which day is my car banned from driving?")
E("car", "The Honda's oil change is due at 62,000 miles.", "oil change",
  "When does the sedan need its next engine service?", "本田什么时候该换机油？")
E("car", "I traded in the old Corolla for a used Tesla Model 3 in August.", ("Tesla", "Tesla"),
  "What vehicle do I drive now?", "我现在开什么车？", ch=1)

Z("parking", "我的车位是地下二层 B2-117，门禁卡放在玄关抽屉。", ("车位号", "车位"),
  "地库里我那个位置是几号？", "What's my parking spot number?")
E("parking", "Office parking moved from the Elm Street garage to Lot C behind the building.", "Lot C",
  "Where do I leave my car at work now?", "公司停车现在停在哪？", ch=1)

Z("home-repair", "厨房水龙头漏水，物业约了周四下午来修。", "水龙头",
  "洗碗池那儿滴水的毛病哪天有人上门？", "When is the faucet getting fixed?")
Z("home-repair", "房东换了，新房东姓黄，电话 139 0000 1234。", "房东",
  "现在租的房子业主怎么联系？", "How do I contact the new landlord?", ch=1)
E("home-repair", "Our plumber is Dave from Quickfix, reachable at 555-0142.", "plumber",
  "Who do we call when the pipes leak?", "家里的水管工是谁？")
E("home-repair", "The furnace filter was replaced in October and should be changed every three months.", "furnace filter",
  "How often should the heating unit's air screen be swapped?", "暖气炉滤网多久换一次？")

Z("wifi", "家里 Wi-Fi 名字是 Home_5G，密码是 panda2024。", ("Wi-Fi 密码", "Wi-Fi"),
  "家里的无线网怎么连？", "What's the home Wi-Fi password?")
Z("wifi", "宽带从电信换成了联通，千兆套餐每月 199 元。", "宽带",
  "家里上网现在是哪家运营商？", "Which internet provider do we use now?", ch=1)
E("wifi", "The guest Wi-Fi network is called Maple-Guest and the password is sunflower88.", "Maple-Guest",
  "How do visitors get online at our place?", "访客网络的密码是什么？")
E("wifi", "The router is in the hallway closet; reboot it by unplugging for 30 seconds.", "router",
  "Where's the box that gives us internet?", "路由器放在哪里？")

Z("birthdays", "妈妈的生日是农历八月十五，和中秋节同一天。", "中秋",
  "我母亲哪天过生？", "When is my mom's birthday?")
Z("birthdays", "老婆生日是 5 月 20 日，她喜欢百合花。", "百合",
  "给爱人庆生是哪一天？", "When is my wife's birthday?")
E("birthdays", "Dad's birthday is July 9th; he'd love a new fishing reel.", "fishing reel",
  "What gift would my father like?", "爸爸生日是哪天？")
E("birthdays", "My best friend Sam turns 30 on February 2nd.", ("Sam birthday", "Sam turns"),
  "When is my closest pal's big day?", "Sam 的生日是什么时候？")

Z("partner", "老公不吃香菜，点外卖要备注。", "香菜",
  "我爱人忌口什么？", "What does my husband refuse to eat?")
Z("partner", "女朋友最近迷上了攀岩，周末常去岩馆。", "攀岩",
  "对象最近周末爱玩什么运动？", "What sport is my girlfriend into lately?")
E("partner", "My wife prefers dark chocolate and dislikes anything with coconut.", "coconut",
  "Which flavors does my spouse avoid?", "我老婆不喜欢什么口味？")
E("partner", "Alex, my partner, now works from home on Mondays and Fridays.", ("Alex remote", "Alex"),
  "Which weekdays does my significant other skip the commute?", "Alex 哪几天在家办公？", ch=1)

Z("parents", "爸妈住在苏州，每个月第一个周末回去看他们。", "苏州",
  "多久回一次老家看父母？", "How often do I visit my parents?")
Z("parents", "外婆从老家搬来和我们一起住了，住在北边的次卧。", "外婆",
  "家里老人现在睡哪间屋？", "Where does grandma sleep now?", ch=1)
E("parents", "Mom's new phone number is 415-555-0199 since she switched carriers.", ("mom phone number", "phone number"),
  "How can I reach my mother now?", "妈妈的新电话是多少？", ch=1)
E("parents", "My in-laws are visiting from Ohio for two weeks starting the 3rd.", "in-laws",
  "When is my spouse's family coming to stay?", "公婆什么时候来？")

Z("helper chores", "保洁阿姨每周三上午来，每次四小时，费用 200 元。", "保洁阿姨",
  "家里请人打扫是哪天？", "When does the cleaner come?")
E("helper", "Our babysitter Chloe charges $18 an hour and can't do Sundays.", "Chloe",
  "How much does the person who watches the kids charge?", "保姆每小时收多少钱？")

Z("utilities", "电费每月 8 号自动从支付宝扣款。", "电费",
  None, "When is the electricity bill paid automatically?")
Z("utilities", "燃气公司换了新表，以后抄表改成线上自助上报。", "燃气",
  "煤气用量现在怎么报？", "How do I report the gas meter reading now?", ch=1)
E("utilities", "The water bill comes quarterly and averages about $90.", "water bill",
  "What's our typical charge for tap usage every three months?", "水费一般多少钱？")
E("utilities", "We switched the electricity plan to a fixed rate of 14 cents per kWh.", "kWh",
  "What do we pay per unit of power now?", "电价现在是多少？", ch=1)

Z("anniversary", "结婚纪念日是 10 月 6 日，今年想去海边过。", "纪念日",
  "我们的婚姻周年是哪天？", "When is our wedding anniversary?")
E("anniversary", "Our anniversary dinner is booked at Nopa for 7:30 on the 12th.", "Nopa",
  "Where are we eating to celebrate our years together?", "纪念日晚餐订在哪家餐厅？")

Z("neighbor", "对门的王阿姨人很好，出门时可以请她帮忙收快递。", "王阿姨",
  "出远门时谁能帮我代收包裹？", "Who can receive packages for me when I'm away?")
E("neighbor", "The neighbors in 14B complained about noise after 10 pm, so keep it down.", "14B",
  "Which household asked us to be quieter at night?", "哪家邻居投诉过噪音？")

Z("building", "单元门禁密码是 #2580，每季度物业会更换。", "门禁",
  "进楼那扇门的开锁数字是多少？", "What's the building door code?")
E("building", "Elevator maintenance in our building is every first Monday, 9 to 11 am.", "elevator",
  "When is the lift out of service for upkeep?", "电梯什么时候维护？")

Z("laundry", "羊毛衣服要手洗或者送干洗，不能进洗衣机。", "羊毛",
  "那些毛料衣服该怎么清洗？", "How should wool clothes be washed?")
E("laundry", "Dry cleaning pickup is Tuesdays; the ticket number is 3318.", "dry cleaning",
  "When can I collect my pressed garments?", "干洗的衣服哪天取？")

Z("baby", "宝宝现在每天喝奶 5 次，每次 150 毫升。", "喝奶",
  "小家伙一天进食几次、每次多少？", "How much milk does the baby drink per feeding?")
Z("baby", "宝宝的辅食从米糊换成了南瓜泥，吃得挺好。", "辅食",
  "小家伙添加的那种饭现在换成什么了？", "What solid food is the baby eating now?", ch=1)
E("baby", "The baby naps from 1 to 3 pm, so don't schedule calls then.", "naps",
  "When is the little one asleep in the afternoon?", "宝宝午睡是几点？")

Z("moving", "下个月 18 号搬家，已经约了货拉拉的面包车。", "搬家",
  "换住处那天订了什么车？", "What did I book for moving day?")
E("moving", "We close on the new house on March 28, and movers are booked for the 30th.", "movers",
  "When do we get the keys to our new home?", "新房什么时候过户？")

Z("furniture", "客厅沙发是宜家的灰色布艺款，套子可以拆下来洗。", "沙发",
  "客厅那张长座椅的罩子能清洗吗？", "Can the living room couch cover be washed?")
E("furniture", "We ordered a standing desk from Fully; it arrives in two weeks.", "standing desk",
  "When will the height-adjustable workstation be delivered?", "升降桌什么时候到货？")

# --------------------------------------------------------------------------
# Student life
# --------------------------------------------------------------------------
Z("course", "高数期末考试在 1 月 8 日上午，考场在教三 201。", "高数",
  "微积分那门课什么时候考？", "When is the calculus final exam?")
Z("course", "线性代数的助教换成了孙学姐，答疑时间改到周四晚上。", "线性代数",
  "矩阵那门课有问题现在去问谁？", "Who is the TA for linear algebra now?", ch=1)
E("course", "My statistics midterm is on October 17 and covers chapters 1 to 6.", "statistics midterm",
  "What does the upcoming probability-and-data test cover?", "统计期中考哪些章节？")
E("course lab", "The user dropped Organic Chemistry and took Intro to Psychology instead.", "Organic Chemistry",
  "Which class did the user swap into this term?", "用户退了哪门课，改选了什么？", ch=1)

Z("thesis", "毕业论文导师是周教授，开题报告 3 月底前交。", "开题报告",
  "毕业设计的初期方案什么时候截止？", "When is my thesis proposal due?")
Z("thesis", "论文题目从推荐算法改成了图神经网络的可解释性。", "图神经网络",
  "我的毕业研究方向现在是什么？", "What is my thesis topic now?", ch=1)
E("thesis", "My advisor, Professor Okafor, holds office hours Wednesdays from 3 to 5.", "Okafor",
  "When can I drop by to see my supervisor?", "导师的答疑时间是什么时候？")
E("thesis", "The dissertation draft must be under 80,000 words and submitted by May 30.", "dissertation",
  "How long can my final research write-up be?", "论文初稿字数上限是多少？")

Z("library", "从图书馆借的《算法导论》4 月 2 日到期，记得续借。", "算法导论",
  "借的那本书什么时候要还？", "When is the library book due?")
E("library", "The university library extended its hours and now closes at 2 am during exam weeks.", ("library hours", "library"),
  "How late can I study in the campus book building during finals?", "考试周图书馆几点关门？", ch=1)
E("library", "I owe a $4.50 fine on an overdue DVD.", "overdue DVD",
  "How much is my unpaid penalty for the film I returned past its deadline?", "我欠多少罚款？")

Z("language", "我在学日语，每天用多邻国打卡 20 分钟，目标是明年考 N2。", "N2",
  "我学外语的目标是什么？", "Which Japanese level am I aiming for?")
Z("language", "西班牙语课从线下改成了线上，每周二、四晚上八点。", "西班牙语",
  "那门外语课现在怎么上、几点上？", "When are my Spanish classes now?", ch=1)
E("language", "I practice French with a tutor named Claire on italki every Saturday.", "italki",
  "Who coaches me in that European language on weekends?", "我周六跟谁练法语？")
E("language", "The user's Korean is intermediate; they passed TOPIK level 3.", "TOPIK",
  "How good is the user at that East Asian language?", "用户的韩语是什么水平？")

Z("english-test", "英语四级已经过了，六级打算 12 月考。", "六级",
  "那个更高一级的外语证书我准备哪个月去考？", "When do I plan to take CET-6?")
E("english-test", "The user scored 7.5 on IELTS and needs 8 for the visa program.", "IELTS",
  "What score does the user need on the language proficiency test?", "用户的雅思考了几分？")

Z("dorm", "宿舍在紫荆公寓 5 号楼 412，室友是小马和阿杰。", "紫荆",
  "我住校的房间号是多少？", "What's my dorm room number?")
E("dorm", "My roommate Ben moved out, so I'm now living alone in unit 7B.", ("roommate Ben", "Ben"),
  "Do I still share my apartment?", "我现在还有室友吗？", ch=1)

Z("tuition", "这学期学费 6800 元，9 月 10 日前交清。", "学费",
  "上学这学期要交多少钱？", "How much is tuition this semester?")
Z("tuition", "奖学金从国家励志奖学金换成了学校一等奖学金，金额 8000 元。", "奖学金",
  "我这次拿到的资助是哪一项、多少钱？", "Which scholarship did I get this year?", ch=1)
E("tuition", "My student loan payments start six months after graduation at about $310 a month.", "student loan",
  "When do I have to start paying back what I borrowed for school?", "助学贷款什么时候开始还？")

Z("lab", "化学实验课在周五下午，必须穿实验服、戴护目镜。", "护目镜",
  "周五那门动手课要穿戴什么？", "What safety gear is required in chemistry lab?")
E("lab", "I booked the confocal microscope for Tuesday from 10 to 12.", "confocal microscope",
  "When do I have the imaging equipment reserved?", "我预约了哪天用显微镜？")

Z("assignment", "数据结构的大作业是实现一个 B 树，截止时间是周日晚上 12 点。", "B 树",
  "写树形索引的那个项目哪天截止？", "When is the data structures project due?")
E("assignment", "The machine learning homework must be submitted as a Jupyter notebook on Gradescope.", "Gradescope",
  "How do I hand in my ML problem set?", "机器学习作业怎么提交？")

Z("club", "我加入了学校的辩论社，每周五晚上训练。", "辩论社",
  "我参加的那个练口才的学生社团什么时候活动？", "Which student club did I join?")
E("club", "The user is treasurer of the campus hiking club this year.", "hiking club",
  "What role does the user hold in that outdoors student group?", "用户在徒步社担任什么职务？")

Z("self-study", "我在自学 Rust，跟着官方教程看到第八章。", "Rust",
  "我业余在啃哪门编程语言？", "Which programming language am I teaching myself?")
E("self-study", "I'm taking a Coursera course on SQL and the final quiz is Sunday.", "Coursera",
  "Which online class am I enrolled in?", "我在网上学的是什么课？")

# --------------------------------------------------------------------------
# Freelancer: clients and invoices
# --------------------------------------------------------------------------
Z("client", "客户星河科技的时薪是 500 元，每月底对账。", "星河科技",
  "那家客户每小时付我多少？", "What hourly rate does the Xinghe Tech client pay?")
Z("client", "和蓝鲸传媒的合作改成了包月，每月固定 2 万。", "蓝鲸传媒",
  "那家做视频宣传的客户现在按什么方式给钱？", "How is the Blue Whale Media deal billed now?", ch=1)
E("client", "Acme Corp pays $95 an hour; their contact is Linda in procurement.", "Acme",
  "Who is my point person at that client, and what's my rate?", "Acme 的时薪是多少？")
E("client", "I stopped working with Brightline Studio; their last project wrapped in June.", "Brightline",
  "Which customer did I part ways with?", "我不再跟哪家工作室合作了？", ch=1)

Z("invoice", "发票统一开增值税普通发票，付款周期是 30 天。", "增值税",
  "客户拿到单据后多少天内要付款？", "What payment terms do I give clients?")
Z("invoice", "开票软件从金蝶换成了用友，旧发票记录已导出。", "用友",
  "现在出具收款凭证用哪个工具？", "Which invoicing software do I use now?", ch=1)
E("invoice", "Invoices go out on the 1st of the month with net-15 terms.", "net-15",
  "When do I bill clients and how long do they have to pay?", "发票什么时候发出，账期多久？")
E("invoice", "I raised my late payment fee from 1% to 2% per month.", "late payment fee",
  "What penalty do I charge when clients pay past due?", "逾期付款的罚金现在是多少？", ch=1)

Z("tax", "个税年度汇算要在 6 月 30 日前完成，今年预计退 1200 元。", "汇算",
  "今年向国家申报收入后能返还多少？", "How much tax refund do I expect this year?")
Z("tax", "记账的会计换人了，现在是王会计，每季度收 600 元。", "会计",
  "帮我做账的人现在是谁？", "Who is my accountant now?", ch=1)
E("tax", "Quarterly estimated taxes are due April 15, June 15, September 15 and January 15.", "estimated taxes",
  "When do I send the IRS my advance payments?", "预缴税款的截止日期是哪几天？")
E("tax", "My accountant, Gloria Mendez, charges $450 to file the annual return.", "Gloria",
  "How much does the person who does my books charge?", "会计师报税收多少钱？")

Z("contract", "所有新客户都要先签保密协议，模板在网盘“合同”文件夹。", "保密协议",
  "接新单前要签什么文件？", "Where is the NDA template?")
E("contract", "My standard contract requires a 40% deposit before work begins.", "deposit",
  "How much do clients pay upfront?", "开工前要收多少定金？")
E("contract", "The retainer with Northwind was renewed for another twelve months.", "Northwind",
  "Which client extended their monthly agreement for a year?", "跟 Northwind 的合约续了多久？")

Z("portfolio", "作品集网站用 Notion 搭的，域名是 lin.design。", "作品集",
  "我对外展示案例的个人站点用什么搭建？", "What tool did I build my portfolio site with?")
E("portfolio", "I moved my portfolio from Behance to a self-hosted Ghost site.", "Behance",
  "Where do I show off my work these days?", "我的作品集现在放在哪？", ch=1)

Z("timetrack", "工时统计用 Toggl，每个项目单独建一个标签。", "Toggl",
  "我记录干活时长用什么？", "Which app do I use to track hours?")
E("timetrack", "I cap client work at 30 billable hours a week to avoid burnout.", "billable hours",
  "How much paid work do I take on weekly at most?", "我每周最多接多少计费工时？")

# --------------------------------------------------------------------------
# Health and fitness
# --------------------------------------------------------------------------
Z("running", "我在准备 11 月的杭州马拉松，每周跑量 40 公里。", "马拉松",
  "我每周练多少里程？", "Which marathon am I training for?")
Z("running", "跑鞋从亚瑟士换成了 Hoka，膝盖舒服多了。", "Hoka",
  "我现在训练穿的是哪个牌子？", "What running shoe brand do I wear now?", ch=1)
E("running", "My 5K personal best is 24:10, set at the Parkrun in May.", "personal best",
  "What's my fastest time over five kilometers?", "我的 5 公里最好成绩是多少？")
E("running", "I no longer run on the treadmill; I do my long runs along the river trail now.", "treadmill",
  "Where do I do my distance jogs these days?", "我现在在哪里跑长距离？", ch=1)

Z("gym", "健身房办的是乐刻月卡，一周去三次练力量。", "乐刻",
  "我办的锻炼卡是哪家的？", "Which gym membership do I have?")
Z("gym", "私教课从周一改到了周六上午，教练还是阿杰。", "私教",
  "一对一训练现在哪天上？", "When is my personal training session now?", ch=1)
E("gym", "The user's deadlift max is 140 kg and they train legs on Thursdays.", "deadlift",
  "How much can the user pull off the floor?", "用户硬拉最大重量是多少？")
E("gym", "I cancelled my Planet Fitness membership and now work out at the community center.", "Planet Fitness",
  "Which place replaced my old fitness club?", "我退掉 Planet Fitness 之后去哪锻炼？", ch=1)

Z("exercise2", "我每周日早上在家跟着视频做 40 分钟瑜伽。", "瑜伽",
  "我周末在家做什么伸展锻炼？", "When do I do yoga?")
E("exercise2", "I do a 20-minute Pilates class on Wednesdays at lunch.", "Pilates",
  "What core workout do I do midweek?", "我周三中午上什么课？")

Z("steps", "每天目标走一万步，用小米手环记录。", "小米手环",
  "我每天打算走多少路？", "What's my daily step goal?")
E("steps", "My Fitbit step goal went down from 10,000 to 8,000 a day.", "Fitbit",
  "How far do I aim to walk each day now?", "我现在每天的步数目标是多少？", ch=1)

Z("sleep", "用户晚上 11 点前要睡，睡前一小时不看手机。", "睡前",
  "用户一般几点休息？", "What time does the user go to bed?")
Z("sleep", "我的午睡改成了 20 分钟以内，睡久了下午反而犯困。", "午睡",
  "中午我休息多长时间？", "How long are my afternoon naps now?", ch=1)
E("sleep", "I've been using a white noise machine since the new neighbors moved in.", "white noise",
  "What helps me fall asleep these days?", "我现在靠什么助眠？")
E("sleep", "My sleep tracker says I average 6.5 hours a night.", "sleep tracker",
  "How much rest do I get per night on average?", "我平均每晚睡几个小时？")

Z("meds", "我每天早饭后吃一片维生素 D，晚上吃一粒鱼油。", "维生素 D",
  "我每天补充哪些营养片？", "Which supplements do I take daily?")
Z("meds", "胃药从饭后吃改成了饭前半小时吃，医生说效果更好。", "胃药",
  "肚子不舒服开的那种现在啥时候服用？", "When should I take my stomach medicine now?", ch=1)
E("meds", "The user takes 50 mcg of levothyroxine every morning on an empty stomach.", "levothyroxine",
  "What thyroid pill does the user take before breakfast?", "用户每天早上吃什么甲状腺药？")
E("meds", "My inhaler prescription refills on the 20th at the Walgreens on Pine Street.", "inhaler",
  "When can I pick up my asthma medicine?", "哮喘吸入器什么时候可以续药？")

Z("vitals", "上周体检血压 135/88，医生建议少盐多运动。", "血压",
  "上次量的那个收缩舒张读数是多少？", "What was my blood pressure at the last checkup?")
Z("vitals", "体重从 82 公斤降到了 75 公斤，目标是 70。", "体重",
  "我现在多少斤了？", "How much do I weigh now?", ch=1)
E("vitals", "My resting heart rate is around 58 bpm according to my watch.", "resting heart rate",
  "What's my pulse when I'm sitting still?", "我的静息心率是多少？")
E("vitals", "The user's fasting blood sugar came back at 5.4 mmol/L in the April checkup.", "blood sugar",
  "What was the user's glucose result?", "用户的空腹血糖是多少？")

Z("diet tea", "我在控糖，奶茶只点无糖的，甜点尽量不吃。", "控糖",
  "我现在吃甜的有什么限制？", "Am I cutting down on sugar?")
Z("diet", "用户已经吃素两年了，但吃鸡蛋和牛奶。", "吃素",
  "用户碰不碰肉？", "Is the user vegetarian?")
E("diet", "I'm doing 16:8 intermittent fasting and eat only between noon and 8 pm.", "intermittent fasting",
  "During what hours do I have meals?", "我的进食时间窗口是几点到几点？")
E("diet", "The user gave up dairy last year and now pours soy milk on cereal.", "dairy",
  "What does the user put on their breakfast flakes now?", "用户早餐麦片现在配什么奶？", ch=1)

Z("coffee", "用户每天最多两杯咖啡，下午三点以后不喝。", "咖啡",
  "用户对提神饮品有什么规矩？", "How much coffee does the user drink per day?")
E("coffee", "I switched from a Nespresso to a pour-over setup with a Hario V60.", "V60",
  "What do I use to make my morning cup now?", "我现在用什么冲咖啡？", ch=1)
E("coffee", "The user's usual order at Blue Bottle is an oat cortado, no sugar.", "cortado",
  "What does the user usually get at the café?", "用户在咖啡店常点什么？")

Z("tea", "用户喝茶只喝龙井，不加糖，水温 80 度。", "龙井",
  "用户平时泡哪种绿叶饮品？", "What kind of tea does the user drink?")
E("tea sleep", "I switched from black tea to chamomile in the evenings to sleep better.", "chamomile",
  "What do I drink at night now?", "我晚上现在喝什么茶？", ch=1)

Z("skincare", "用户是敏感肌，护肤品只用珂润，不用含酒精的。", "珂润",
  "用户的面部保养用哪个牌子？", "Which skincare brand does the user use?")
E("skincare", "The user applies SPF 50 sunscreen every morning, even in winter.", "sunscreen",
  "What does the user put on for UV protection?", "用户每天涂什么防晒？")

# --------------------------------------------------------------------------
# Travel
# --------------------------------------------------------------------------
Z("flight", "用户坐飞机偏好靠窗座位，不要最后一排。", "靠窗",
  "用户订航班时喜欢哪种位置？", "What seat does the user prefer on flights?")
Z("flight", "我的常旅客卡从国航换成了东航，金卡有效期到明年。", "东航",
  "我现在攒里程用哪家航司？", "Which airline's frequent flyer program am I in now?", ch=1)
E("flight", "My United MileagePlus number is UA4481927.", "MileagePlus",
  "What's my loyalty ID for that airline?", "我的美联航会员号是多少？")
E("flight", "The user always wants an aisle seat and a vegetarian meal on long-haul flights.", "aisle",
  "Where does the user like to sit on long trips by plane?", "用户长途飞行喜欢什么座位？")

Z("passport", "护照 2026 年 3 月过期，出国前要确认有效期超过半年。", "护照",
  "出境证件什么时候到期？", "When does my passport expire?")
E("passport", "My Schengen visa appointment is at the consulate on the 22nd at 8:30.", "Schengen",
  "What date is my interview for the EU travel permit?", "申根签证的预约是几号？")
E("passport", "The user's Global Entry was approved and expires in five years.", "Global Entry",
  "Did the user get trusted traveler status?", "用户的快速通关申请批了吗？")

Z("trip", "国庆打算去云南，先到昆明，再去大理住四天。", "大理",
  "十一假期的出游计划是什么？", "Where am I going for the National Day holiday?")
Z("trip", "年假旅行从日本改成了泰国，机票已经改签。", "泰国",
  "今年休假出游换成去哪了？", "Where did my vacation plan change to?", ch=1)
Z("trip", "春节回老家哈尔滨，已经抢到腊月二十八的高铁票。", "哈尔滨",
  "过年回家坐哪天的车？", "Which day's train did I get for Spring Festival?")
E("trip", "We're renting a cabin near Lake Tahoe for the long weekend in September.", "Tahoe",
  "Where are we staying for the three-day weekend at the end of summer?", "九月长周末我们住在哪里？")
E("trip", "Our Portugal trip moved from April to June because of Ana's exams.", "Portugal",
  "When is the Iberian vacation happening now?", "去葡萄牙的旅行改到几月了？", ch=1)

Z("hotel", "出差住宿优先选全季酒店，用的是华住会员。", "华住",
  "公务出行时过夜首选哪家？", "Which hotel chain do I prefer for business trips?")
E("hotel", "I'm a Marriott Bonvoy Gold member with about 85,000 points.", "Bonvoy",
  "How many rewards do I have with that lodging group?", "我的万豪积分有多少？")

Z("travel-ins", "出国旅游保险买的是安联的，保额 50 万。", "安联",
  "出境游的保障买了哪家的？", "Which company is my overseas travel insurance with?")
E("travel-ins", "Travel insurance for the trip is with World Nomads, policy WN-22817.", "World Nomads",
  "Who covers me if something goes wrong abroad?", "这次旅行保险是哪家的？")

Z("paperwork", "居住证续签要带租房合同和身份证去派出所。", "居住证",
  "办本地暂住凭证延期要带哪些材料？", "What do I need to renew my residence permit?")
E("paperwork", "My driver's license renewal is due in August, and I need a new photo.", "driver's license",
  "When do I have to update my permit to drive?", "我的驾照什么时候要换？")

# --------------------------------------------------------------------------
# Cooking and food
# --------------------------------------------------------------------------
Z("recipe", "红烧肉的秘诀是先炒糖色，再小火炖一个半小时。", "红烧肉",
  "那道酱色五花肉怎么做才好吃？", "What's the trick to my braised pork?")
Z("recipe", "包饺子的馅改成了猪肉白菜，之前韭菜的孩子不爱吃。", "饺子",
  "家里包的那种面食现在里面放什么？", "What filling do we use for dumplings now?", ch=1)
Z("recipe", "做番茄炒蛋先炒蛋再炒番茄，最后加一勺糖。", "番茄炒蛋",
  "那道红黄相间的家常菜步骤是什么？", "How do I make tomato and egg stir-fry?")
E("recipe", "Grandma's lasagna uses ricotta, not béchamel, and bakes at 375°F for 45 minutes.", "lasagna",
  "How long does Nana's layered pasta stay in the oven?", "奶奶的千层面烤多久？")
E("recipe", "The user's chili recipe now uses smoked paprika instead of cayenne.", "chili",
  "Which spice did the user swap in their bean stew?", "用户的辣椒炖菜现在用什么香料？", ch=1)

Z("kitchen", "空气炸锅炸鸡翅 200 度 18 分钟，中间翻一次面。", "空气炸锅",
  "用那个无油炸的电器做翅膀几度几分钟？", "What setting do I use for wings in the air fryer?")
Z("kitchen", "家里的燃气灶换成了电磁炉，锅要用平底的。", "电磁炉",
  "现在家里炒菜靠什么加热？", "What kind of stove do we have now?", ch=1)
Z("kitchen", "冰箱冷藏室温度调到了 4 度，之前是 6 度。", "冷藏室",
  "冰柜保鲜那一层现在设的几度？", "What temperature is the fridge set to now?", ch=1)
E("kitchen", "The Instant Pot sealing ring needs replacing; order a 6-quart one.", "Instant Pot",
  "What part of the pressure cooker is worn out?", "高压锅要换哪个配件？")
E("kitchen", "Our oven runs about 15 degrees hot, so set it lower than recipes say.", "oven",
  "Why do I turn the baking temperature down?", "烤箱的温度偏差多少？")

Z("taste", "用户口味偏重，喜欢川菜，特别能吃辣。", "川菜",
  "用户偏爱哪个地方的菜系？", "What cuisine does the user love?")
Z("taste", "我最近不吃辣了，胃受不了，点菜要微辣或不辣。", "微辣",
  "我现在对刺激性口味能接受到什么程度？", "How spicy can I eat now?", ch=1)
E("taste", "The user can't stand mushrooms in any form.", "mushrooms",
  "Which fungus does the user refuse to eat?", "用户讨厌吃什么？")
E("taste", "I love Thai food, especially green curry with extra basil.", "green curry",
  "What's my favorite dish from Southeast Asia?", "我最喜欢的泰国菜是什么？")

Z("baking", "酸面包的酵头养在冰箱里，每周喂一次面粉和水。", "酵头",
  "做欧包的那罐发酵种多久要喂？", "How often do I feed the sourdough starter?")
E("baking", "I switched to King Arthur bread flour for baguettes, and the crust came out much better.", "King Arthur",
  "Which brand do I use for the long French loaves now?", "我做法棍现在用什么面粉？", ch=1)

Z("groceries", "周末上午固定去菜市场买一周的菜，顺便买豆腐。", "菜市场",
  "我一般什么时候去采购食材？", "When do I do my weekly food shopping?")
E("groceries", "We get groceries delivered from Instacart every Thursday.", "Instacart",
  "How do we get our food supplies each week?", "我们每周怎么买菜？")

Z("mealprep", "工作日午饭自己带，前一天晚上做好装进保温饭盒。", "保温饭盒",
  "我上班中午吃什么、怎么准备？", "How do I handle lunch on workdays?")
E("mealprep", "On Sundays I meal-prep five lunches: rice, chicken and broccoli.", "meal-prep",
  "What do I cook in advance for my workday midday food?", "我周日备餐做什么？")

# --------------------------------------------------------------------------
# Finances
# --------------------------------------------------------------------------
Z("bank", "工资卡是招商银行，尾号 6621。", "工资卡",
  "每月收入打进哪张卡？", "Which bank is my salary card with?")
Z("bank", "信用卡从浦发换成了招行的经典白，免年费。", "信用卡",
  "我现在主要刷哪张卡？", "Which credit card do I use now?", ch=1)
Z("bank", "每月工资的 20% 自动转进零钱通存起来。", "零钱通",
  "我每月存钱是怎么安排的？", "How much of my salary do I save automatically?")
E("bank", "My checking account is with Chase; the savings account is at Ally for the higher rate.", "Ally",
  "Where do I keep my rainy-day money?", "我的储蓄账户在哪家银行？")
E("bank", "The user's credit card statement closes on the 25th and payment is due on the 20th of the next month.", "statement",
  "When is the user's plastic bill due?", "用户的信用卡几号还款？")

Z("budget rent groceries", "每月预算：房租 5000，吃饭 3000，娱乐不超过 1000。", "预算",
  "每月在玩乐上的开销上限是多少？", "What's my monthly entertainment budget?")
E("budget", "I track spending in YNAB and review it every Sunday night.", "YNAB",
  "What app do I use to watch where my money goes?", "我用什么软件记账？")
E("budget groceries", "Our grocery budget went up from $600 to $750 a month.", "grocery budget",
  "How much do we allow for food shopping each month now?", "每月买菜的预算现在是多少？", ch=1)

Z("invest", "每月 15 号定投沪深 300 指数基金 2000 元。", "定投",
  "我每个月自动买什么理财？", "What index fund do I invest in monthly?")
Z("invest", "把一部分股票卖了，换成了国债，风险降低一些。", "国债",
  "我最近调整持仓做了什么？", "What did I move some stocks into?", ch=1)
E("invest", "My Roth IRA is at Vanguard and holds VTSAX.", "Roth IRA",
  "Where is my tax-free retirement account?", "我的退休账户在哪家公司？")
E("invest", "The user sold their Tesla shares and moved the money into a high-yield savings account.", "Tesla shares",
  "What did the user do with their electric-car stock?", "用户把特斯拉股票怎么处理了？", ch=1)

Z("rent", "房租每月 5 号转给房东，6500 元，押一付三。", "房租",
  "租住的那套每月几号付钱？", "When is rent due?")
Z("rent", "房贷利率从 4.9% 降到了 3.85%，月供少了 800 多。", "房贷",
  "买房借的钱现在利率多少？", "What's my mortgage rate now?", ch=1)
E("rent", "Our mortgage payment is $2,340 and comes out on the 1st.", "mortgage",
  "How much is the monthly home loan bill?", "我们每月房贷还多少？")
E("rent", "The lease renews in August, and the landlord raised the rent by 4 percent.", "lease",
  "How much is my housing payment going up?", "房租涨了多少？", ch=1)

Z("insurance", "给爸妈买的百万医疗险每年 8 月续保。", "医疗险",
  "父母的健康保障哪个月续费？", "When does my parents' medical insurance renew?")
Z("insurance", "我的重疾险已经交了五年，每年 11 月扣费。", "重疾险",
  "那份大病保障哪个月扣钱？", "When is my critical illness insurance charged?")
E("insurance", "The user's life insurance policy is with MetLife, $500k term, 20 years.", "MetLife",
  "Who provides the user's coverage if they die?", "用户的寿险在哪家公司？")
E("insurance", "We switched home insurance from State Farm to Lemonade to save about $300 a year.", "Lemonade",
  "Which company covers our house now?", "房屋保险换成了哪家？", ch=1)

Z("subscription", "视频会员只留了腾讯视频，爱奇艺和优酷都退订了。", "腾讯视频",
  "我现在还开着哪个追剧平台？", "Which streaming subscription do I still keep?", ch=1)
E("subscription", "The Spotify family plan costs $16.99 and is billed to my Visa.", "Spotify",
  "How much do we pay for music streaming?", "音乐会员每月多少钱？")
E("subscription", "I cancelled Netflix and signed up for Disney+ for the kids.", "Netflix",
  "Which video service do I pay for now?", "我现在订阅的是哪个视频平台？", ch=1)

Z("phone-plan", "手机套餐是移动的 58 元档，每月 30G 流量。", "流量",
  "我这张电话卡每月包含多少数据？", "How much mobile data does my plan include?")
E("phone-plan", "My phone plan is with Mint Mobile at $15 a month.", "Mint Mobile",
  "Which carrier is my cell service with?", "我的手机套餐是哪家的？")

Z("donation", "每月给希望工程捐 100 元，已经坚持三年了。", "希望工程",
  "我每月做的那笔公益捐款给了谁？", "Which charity do I donate to every month?")
E("donation", "I donate $25 a month to the local food bank.", "food bank",
  "Where does my monthly charitable gift go?", "我每月捐款给哪里？")

# --------------------------------------------------------------------------
# Online shop operations
# --------------------------------------------------------------------------
Z("shipping", "店铺默认发中通快递，偏远地区改发邮政。", "中通",
  "网店平时用哪家物流？", "Which courier does the shop use by default?")
Z("shipping", "发货时效从 48 小时改成了 24 小时内，超时要赔付。", "发货时效",
  "下单后多久必须寄出？", "How fast must orders ship now?", ch=1)
E("shipping", "Orders over $50 ship free; everything else is a flat $5.99.", "ship free",
  "What's the minimum spend to avoid delivery charges?", "满多少包邮？")
E("shipping", "We moved from USPS to UPS Ground for all domestic parcels.", "UPS Ground",
  "Which carrier handles our packages within the country now?", "国内包裹现在用哪家快递？", ch=1)

Z("returns", "支持七天无理由退货，但定制商品不退不换。", "无理由退货",
  "顾客买了不满意能送回来吗？", "What's the shop's return policy?")
E("returns", "The return window was extended from 14 to 30 days for holiday purchases.", "return window",
  "How long do customers have to send back gifts bought in December?", "节日购买的商品退货期限是多久？", ch=1)

Z("supplier", "陶瓷杯的供货商是景德镇的老周，起订量 200 个。", "景德镇",
  "那批喝水的器皿找谁进货？", "Who supplies the ceramic mugs?")
Z("supplier", "布料供应商换成了绍兴的一家厂，价格便宜了 15%。", "布料",
  "做衣服的面料现在从哪进？", "Where do we source fabric now?", ch=1)
E("supplier", "Our candle wax supplier is Lone Star Wax in Austin; lead time is ten days.", "candle wax",
  "How long do raw materials for our scented products take to arrive?", "蜡烛原料从哪家进货？")
E("supplier", "Inventory is counted on the last Friday of every month.", "inventory",
  "When do we tally what's on the shelves?", "每月什么时候盘点库存？")

Z("payment", "店铺收款接入了微信支付和支付宝，手续费 0.6%。", "手续费",
  "顾客付钱时平台抽成多少？", "What's the payment processing fee?")
E("payment", "We replaced PayPal with Stripe at checkout in the spring.", "Stripe",
  "What handles card payments on our store now?", "结账现在用哪个支付服务？", ch=1)

Z("promo", "双十一活动全场满 300 减 50，优惠码 SALE11。", "SALE11",
  "十一月那次大促的力度是多少？", "What's the Singles' Day discount?")
E("promo", "The code WELCOME10 gives new customers 10 percent off their first order.", "WELCOME10",
  "What discount do first-time buyers get?", "新客首单有什么优惠？")

Z("cs", "客服在线时间是每天 9 点到 21 点，节假日不休息。", "客服",
  "店里几点有人回复顾客消息？", "What are customer service hours?")
E("cs", "Support tickets are answered within one business day via Zendesk.", "Zendesk",
  "How quickly do we reply to customer help requests?", "客服工单多久回复？")

Z("warehouse", "仓库从义乌搬到了嘉兴，新地址已经更新到后台。", "仓库",
  "货现在存在哪个城市？", "Where is the warehouse now?", ch=1)
E("warehouse", "The warehouse on Harbor Road opens at 7 am for pickups.", "Harbor Road",
  "What time can couriers collect parcels from our storage site?", "仓库早上几点开门？")

Z("product", "店里卖得最好的是手工香薰蜡烛，占销售额四成。", "香薰蜡烛",
  "哪款商品最畅销？", "What's the shop's best-selling product?")
E("product", "We raised the price of the linen tote from $28 to $34.", "linen tote",
  "How much does the fabric shoulder bag cost now?", "亚麻托特包现在卖多少钱？", ch=1)

Z("marketing", "店铺公众号每周五晚上八点推送新品。", "公众号",
  "上新的推文每周几发？", "When does the shop's WeChat account post new products?")
E("marketing", "The newsletter goes out every Tuesday to about 4,200 subscribers.", "newsletter",
  "How many people get our weekly email?", "邮件简报有多少订阅者？")

Z("store-platform", "网店开在淘宝，店名叫“木子杂货”。", "木子杂货",
  "我的网上铺子在哪个平台、叫啥？", "What's the name of my online shop?")
E("store-platform", "Our store runs on Shopify's Basic plan at $39 a month.", "Shopify",
  "Which e-commerce platform hosts our shop?", "店铺用的是哪个建站平台？")

Z("reviews", "差评要在 24 小时内回复，语气要客气。", "差评",
  "顾客给了负面评价多久内要回应？", "How fast must we respond to bad reviews?")
E("reviews", "We respond to every one-star review within a day.", "one-star review",
  "How quickly do we answer the worst ratings?", "一星评价多久内回复？")

Z("packaging", "包装盒从白色换成了牛皮纸，印了店铺 logo。", "牛皮纸",
  "寄货用的盒子现在是什么样的？", "What do our shipping boxes look like now?", ch=1)
E("packaging", "Fragile items get double bubble wrap and a Handle with care sticker.", "bubble wrap",
  "How do we protect breakable items when packing?", "易碎品怎么打包？")

# --------------------------------------------------------------------------
# Personal life, hobbies, media
# --------------------------------------------------------------------------
Z("music", "我在学吉他，目前能弹《晴天》的前奏。", "吉他",
  "我在练什么乐器？", "What instrument am I learning?")
E("music", "The user's favorite band is Radiohead and they hate country music.", "Radiohead",
  "Which group does the user like best?", "用户最喜欢哪个乐队？")
E("music", "I sold my old keyboard and bought a Yamaha digital piano.", "Yamaha",
  "What instrument do I play at home now?", "我现在家里用的是什么钢琴？", ch=1)

Z("reading", "最近在读《三体》第二部，每晚读半小时。", "三体",
  "我最近睡前翻的是哪本？", "What book am I reading now?")
E("reading", "My book club meets the first Thursday of the month at Maria's place.", "book club",
  "When does my reading group get together?", "读书会什么时候聚？")
E("reading", "I switched from paper books to a Kindle Paperwhite last year.", "Kindle",
  "What device do I read on these days?", "我现在用什么设备看书？", ch=1)

Z("tv", "最近在追《繁花》，每晚看两集。", "繁花",
  "我最近晚上在看哪部剧？", "Which TV series am I watching lately?")
E("tv", "The user has watched every season of The Office at least three times.", "The Office",
  "Which sitcom does the user keep rewatching?", "用户反复看的是哪部美剧？")

Z("movie", "用户最喜欢的电影是《海上钢琴师》，看过五遍。", "海上钢琴师",
  "用户最爱的片子是哪部？", "What's the user's favorite film?")
E("movie", "My favorite movie is Arrival; I rewatch it every winter.", "Arrival",
  "Which film do I love most?", "我最喜欢的电影是什么？")

Z("gaming", "我在玩《原神》，UID 是 112358，周末会和表弟联机。", "原神",
  "我跟亲戚家小孩一块儿打的是哪款游戏？", "What's my Genshin Impact UID?")
Z("gaming", "Switch 账号从日服切换到了港服，卡带都能通用。", "Switch",
  "我那台任天堂主机的账号现在是哪个区？", "Which region is my Switch account on now?", ch=1)
E("gaming", "The user's Steam username is nightowl_42 and they mostly play strategy games.", "Steam",
  "What's the user's handle on that PC game store?", "用户的 Steam 用户名是什么？")
E("gaming", "I finally finished Elden Ring after 120 hours.", "Elden Ring",
  "Which long fantasy game did I just complete?", "我刚通关了哪款游戏？")

Z("device", "工作电脑是 MacBook Pro M3，16G 内存，序列号贴在底部。", "MacBook",
  "公司配的笔记本是什么型号？", "What laptop do I use for work?")
Z("device", "手机从安卓换成了 iPhone 15，照片已经迁移完。", "iPhone",
  "我现在随身用的是哪个牌子的电话？", "What phone do I have now?", ch=1)
E("device", "My monitor is a 27-inch Dell U2723QE connected over USB-C.", "Dell",
  "What screen do I use at my desk?", "我的显示器是什么型号？")
E("device", "The user's noise-cancelling headphones are Sony WH-1000XM5.", "Sony",
  "Which headset does the user wear to block sound?", "用户的降噪耳机是哪款？")

Z("contact-pref", "用户不喜欢接电话，有事优先发微信。", "微信",
  "联系用户最好用什么方式？", "How does the user prefer to be contacted?")
Z("contact-pref", "我的工作邮箱改成了 wei.chen@newco.com，旧邮箱下月停用。", "邮箱",
  "我现在工作用的电子信箱地址是什么？", "What's my new work email?", ch=1)
E("contact-pref", "Don't email the user after 7 pm; urgent things go by text message.", "text message",
  "What's the best way to reach the user in the evening?", "晚上有急事怎么联系用户？")

Z("photo", "我用富士 X-T5 拍街头，最爱用 23mm 定焦。", "富士",
  "我平时在城市里抓拍用哪台相机？", "Which camera do I shoot street photos with?")
E("photo", "I edit photos in Lightroom using my own preset called Warm Film.", "Lightroom",
  "What software do I use to process my pictures?", "我用什么软件修图？")

Z("volunteer", "每月第二个周六去动物救助站做志愿者。", "救助站",
  "我每月做公益去哪？", "Where do I volunteer each month?")
E("volunteer", "The user coaches a youth chess club at the library on Saturdays.", "chess",
  "What game does the user teach kids on weekends?", "用户周六教孩子什么？")

Z("friends", "大学室友阿强下个月结婚，婚礼在成都，要随礼。", "阿强",
  "老同学办喜事在哪个城市？", "Where is Aqiang's wedding?")
E("friends", "Tomás from my old job just moved to Denver.", "Denver",
  "Which city did my former coworker relocate to?", "Tomás 搬到哪个城市了？", ch=1)
E("friends", "Game night with the Lins is every second Friday, and we take turns hosting.", "game night",
  "How often do we get together with those friends for tabletop fun?", "游戏之夜多久一次？")

Z("barber", "理发一直找楼下的 Tony 老师，剪一次 68 元。", "Tony",
  "我平时找谁弄头发？", "Who cuts my hair?")
E("barber", "My haircut appointment moved from Saturday to Friday at 4.", "haircut",
  "When is my next trim at the salon?", "我的理发预约改到什么时候了？", ch=1)

Z("clothes", "用户穿衣尺码是 L，裤子腰围 31，鞋子 42 码。", "尺码",
  "给用户买衣服该选多大？", "What clothing size does the user wear?")
E("clothes", "I donated all my old suits; I only wear casual clothes to work now.", "suits",
  "What do I wear to the office these days?", "我现在上班穿什么？", ch=1)

Z("home-city", "用户住在深圳南山区，离科技园很近。", "南山区",
  "用户家在哪座城市？", "Which city does the user live in?")
E("home-city", "The user lives in Portland, Oregon, in the Alberta Arts district.", "Portland",
  "Where is the user's home?", "用户住在哪个城市？")

Z("craft", "我每周三晚上去工作室学陶艺，这学期做一套茶杯。", "陶艺",
  "我在学什么手工？", "What craft class do I take?")
E("craft", "I'm knitting a blue scarf for my nephew.", "knitting",
  "What am I making with yarn right now?", "我在给侄子织什么？")

# --------------------------------------------------------------------------
# More memories (various domains)
# --------------------------------------------------------------------------
Z("appliance", "洗碗机是西门子的，洗涤块放在水槽下面的柜子里。", "洗碗机",
  "刷盘子那台机器用的清洁块收在哪？", "Where are the dishwasher detergent tablets kept?")
Z("appliance", "加湿器每三天换一次水，滤芯半年换一次。", "加湿器",
  "让屋里空气不干的那台设备多久换水？", "How often do I change the water in the humidifier?")
E("appliance", "The dishwasher is a Bosch, and the detergent pods are under the sink.", "dishwasher",
  "Where is the soap for the plate-cleaning machine kept?", "洗碗机的洗涤块放在哪？")
Z("medical", "儿子的儿科医生是妇幼保健院的孙主任，周二上午有门诊。", "孙主任",
  "孩子看病一般找哪位大夫？", "Who is my son's pediatrician?")
Z("medical", "用户每年秋天都会打一次流感疫苗。", "流感疫苗",
  "用户每年什么时候去打预防针？", "When does the user get a flu shot?")
Z("medical", "牙套每天要戴满 22 小时，每个月复诊一次。", "牙套",
  "矫正器一天得戴多久？", "How many hours a day do I wear my braces?")
Z("gateway api-auth", "接口网关用的是 Kong，限流规则在网关上配置。", "Kong",
  "请求入口那层用的是什么组件？", "Which API gateway do we use?")
Z("cron", "定时任务统一用 XXL-JOB 调度，负责人写在任务描述里。", "XXL-JOB",
  "周期性跑的批处理靠什么系统触发？", "What schedules our cron jobs?")
E("cron", "Scheduled jobs run through Airflow, and the DAGs live in the data-pipelines repo.", "Airflow",
  "Where are our recurring data workflows defined?", "定时任务用什么调度？")
Z("analytics", "数据埋点用神策，事件名统一小写加下划线。", "神策",
  "用户行为采集用的是哪家平台？", "Which analytics platform do we use for event tracking?")
E("analytics", "Product analytics events are tracked in Mixpanel with snake_case names.", "Mixpanel",
  "Which tool records what people click in our app?", "产品埋点用的是哪个工具？")
Z("sms", "短信服务用的是云片，验证码模板编号是 1021。", "云片",
  "登录验证码是通过哪家发到手机上的？", "Which SMS provider sends our verification codes?")
E("sms", "Verification texts are sent through Twilio from a dedicated short code.", "Twilio",
  "Which provider delivers our login codes to phones?", "验证码短信用哪家服务商发送？")
Z("storage-obj", "对象存储用的是七牛云，图片走 img.example.cn 这个域名。", "七牛云",
  "网站图片文件托管在哪家？", "Where are our images stored?")
Z("rpc", "服务间调用统一用 gRPC，proto 文件放在 common-proto 仓库。", "gRPC",
  "后端模块之间用什么协议通信？", "What protocol do our services use to call each other?")
Z("branching", "代码仓库的默认分支叫 main，禁止直接 push。", "直接 push",
  "能不能绕过合并请求把改动推上去？", "Can I push directly to main?")
Z("parcel", "小区快递驿站在 3 号楼底商，晚上 9 点关门。", "驿站",
  "取包裹的地方几点下班？", "What time does the parcel station close?")
E("parcel", "Packages are left with the concierge at the front desk if nobody's home.", "concierge",
  "Where do deliveries go when we're out?", "没人在家时快递放在哪？")
Z("outing", "科技馆年卡已经办好了，放在钱包里，周末可以带孩子去。", "科技馆",
  "带娃去看展的那张年票放哪了？", "Where is the science museum annual pass?")
E("outing", "We have a family membership at the science museum that expires in May.", "science museum",
  "Which attraction do we have an annual family pass for?", "我们办了哪个场馆的家庭年卡？")
Z("childcare", "孩子的午托在学校对面的阳光午托班，每月 900 元。", "午托",
  "中午照看孩子的地方每月多少钱？", "How much is the kids' lunchtime care per month?")
E("childcare", "The after-school program at Lincoln runs until 6 pm and costs $400 a month.", "after-school program",
  "How long does the kids' afternoon care last each day?", "课后托管几点结束？")
Z("wellness", "我每晚泡脚 15 分钟，水温 40 度左右。", "泡脚",
  "睡前那个热水养生习惯要多长时间？", "How long do I soak my feet each night?")
E("wellness", "I get a massage every other Friday at Serenity Spa.", "massage",
  "How often do I get my muscles worked on professionally?", "我多久去按摩一次？")
Z("budget", "家里记账用随手记，我和老婆共用一个账本。", "随手记",
  "我们两口子用哪个 App 管开销？", "Which bookkeeping app do my wife and I share?")
Z("insurance", "每年 12 月给孩子买一份教育金保险，已经买了三年。", "教育金",
  "给小孩攒学费的那份保单哪个月买？", "When do I buy the child's education savings insurance?")
Z("grad-exam", "考研目标是浙大计算机，专业课考 408。", "考研",
  "我想读研去哪所学校？", "Which grad school am I aiming for?")
E("grad-exam", "I'm studying for the GRE, and my test date is November 9.", "GRE",
  "When is my graduate admissions exam?", "我的 GRE 考试是哪天？")
Z("group-meeting", "每周四下午是组会，要准备 15 分钟的进展汇报。", "组会",
  "实验室每周碰头是哪天？", "When is the weekly lab group meeting?")
E("group-meeting", "Lab group meeting is Thursdays at 4, and each student presents once a month.", "group meeting",
  "When does my research team get together each week?", "组会是每周几？")
Z("thesis", "论文格式要求：正文宋体小四，行距 1.5 倍。", "宋体",
  "毕业稿件的字体和间距有什么规定？", "What font does the thesis body text need?")
Z("livestream", "直播带货每周二和周六晚上八点开播，主播是小雨。", "直播",
  "线上卖货的节目几点开始？", "When are the live-selling streams?")
E("livestream", "Our live shopping stream runs Saturdays at 7 pm on TikTok.", "TikTok",
  "When do we do our on-camera selling sessions?", "直播卖货是什么时间？")
Z("shop-metrics", "店铺客单价大约 85 元，复购率 30%。", "客单价",
  "顾客平均每单花多少钱？", "What's the shop's average order value?")
Z("shipping", "跨境订单走菜鸟国际，清关大概需要 5 天。", "菜鸟国际",
  "寄到海外的包裹过海关要多久？", "How long does customs take for cross-border orders?")
Z("passport", "去日本的签证是五年多次，2027 年到期。", "五年多次",
  "我赴日的入境许可什么时候失效？", "When does my Japan visa expire?")
Z("biz-trip", "下周一去上海出差，住静安区，会议在周三。", "静安",
  "我这趟公务出行住在哪个片区？", "Where am I staying on my Shanghai business trip?")
E("biz-trip", "I'm taking the train to Chicago on Monday for the client workshop and staying two nights.", "Chicago",
  "Where is my work trip at the start of the week?", "我周一去哪个城市出差？")
Z("staples", "家里吃的是五常大米，一次买 10 公斤。", "五常",
  "家里煮饭用的是什么产地的粮食？", "What rice do we buy?")
E("staples", "We buy rice in 25-pound bags from the Asian market on 8th Street.", ("bulk rice", "rice"),
  "Where do we get our grain in bulk?", "大米在哪里买？")
Z("taste diet", "用户不吃内脏，也不吃羊肉。", "内脏",
  "用户有哪些荤菜不碰？", "What meats does the user avoid?")
Z("parents", "每周日晚上固定和爸妈视频通话。", "视频通话",
  "我什么时候跟父母连线聊天？", "When do I video call my parents?")
Z("calligraphy", "我在练书法，临的是颜真卿的《多宝塔碑》。", "书法",
  "我毛笔字在临哪本帖？", "What calligraphy model am I copying?")
E("calligraphy", "I'm learning brush lettering and practice for 20 minutes before bed.", "brush lettering",
  "What art do I practise each night?", "我每晚练什么？")
Z("car", "行车记录仪的内存卡是 128G，每月导出一次视频。", "行车记录仪",
  "车上那个摄像头的录像多久导一次？", "How often do I export the dashcam footage?")
Z("paperwork", "用户的身份证年底到期，要去派出所换新的。", "身份证",
  "用户的居民证件什么时候失效？", "When does the user's ID card expire?")
Z("vitals", "体检报告存在健康 App 里，每年 4 月做一次体检。", "体检报告",
  "年度检查的结果放在哪？", "Where are my medical checkup reports saved?")

# Keyword queries phrased as short questions or two-word searches (the distinctive term is kept).
KWQ = {
    "Jenkins": "还在用 Jenkins 吗？", "上线窗口": "上线窗口是哪天？", "Argo CD": "Argo CD 怎么部署？",
    "git-flow": "还用 git-flow 吗？", "ruff": "提交前跑 ruff 吗？", "PagerDuty": "PagerDuty 归哪个组？",
    "Grafana": "Grafana 地址", "命中率": "缓存命中率多少？", "华为云": "华为云迁移什么时候完成的？",
    "JWT": "JWT 有效期多久？", "站会": "站会几点开？", "周会": "周会改到什么时候了？", "跳板机": "跳板机端口",
    "覆盖率": "覆盖率要求多少？", "Harbor": "Harbor 地址是什么？", "SSL 证书": "SSL 证书哪天到期？",
    "Jira": "Jira 项目代号", "应急": "应急群叫什么？", "工位": "我的工位在哪？", "年假": "年假还剩几天？",
    "报销": "报销期限", "年糕": "年糕是谁？", "狗粮": "狗粮换成什么了？", "钢琴课": "钢琴课多少钱一节？",
    "洗牙": "洗牙约在哪天？", "花生": "花生过敏", "厨余垃圾": "厨余垃圾哪天收？", "龟背竹": "龟背竹多久浇水？",
    "保养": "车子保养", "宽带": "宽带是哪家的？", "外婆": "外婆住哪间？", "保洁阿姨": "保洁阿姨哪天来？",
    "高数": "高数考试在哪？", "开题报告": "开题报告截止时间", "学费": "学费交多少？", "血压": "血压多少？",
    "体重": "现在体重多少？", "咖啡": "咖啡每天几杯？", "护照": "护照什么时候过期？", "红烧肉": "红烧肉怎么做？",
    "空气炸锅": "空气炸锅鸡翅", "工资卡": "工资卡是哪家银行？", "定投": "定投什么基金？", "房租": "房租几号交？",
    "客服": "客服几点下班？", "搬家": "搬家约的什么车？", "流量": "每月多少流量？",
    "MongoDB": "MongoDB host", "ClickHouse": "when did we move to ClickHouse?",
    "Buildkite": "how long does Buildkite take?", "code freeze": "code freeze dates", "stipend": "on-call stipend",
    "Loki": "Loki retention", "Okta": "what is Okta used for?", "Kafka": "Kafka retention?",
    "Biscuit": "when is Biscuit's rabies shot?", "Kiwi": "what does Kiwi eat?", "Alvarez": "who is Mr. Alvarez?",
    "soccer": "soccer practice times", "eye exam": "when is my eye exam?", "recycling": "recycling day",
    "plumber": "plumber contact", "router": "where's the router?", "Chloe": "how much does Chloe charge?",
    "Okafor": "Okafor office hours", "Acme": "Acme hourly rate", "deadlift": "deadlift max",
    "personal best": "5K personal best", "MileagePlus": "MileagePlus number", "Tahoe": "Tahoe cabin",
    "lasagna": "how long to bake the lasagna?", "oven": "is the oven accurate?", "mortgage": "mortgage payment amount",
    "Spotify": "how much is Spotify?", "Steam": "Steam username", "Sony": "Sony headphones model",
    "Denver": "who moved to Denver?", "haircut": "haircut appointment", "Portland": "which neighborhood in Portland?",
    "newsletter": "newsletter day", "Shopify": "Shopify plan", "Airflow": "where do the Airflow DAGs live?",
    "GRE": "GRE test date", "dishwasher": "dishwasher pods",
}
for _k, _v in KWQ.items():
    _hits = [m for m in MEMS if m["kw"] == _k]
    assert len(_hits) == 1, _k
    _hits[0]["kw"] = _v

# --------------------------------------------------------------------------
# Absent questions: (topics they collide with, text, terms that must not occur)
# --------------------------------------------------------------------------
ABSENT = []


def AZ(topics, text, terms):
    ABSENT.append(dict(lang="zh", topics=set(topics.split()), text=text, terms=[t.lower() for t in terms]))


def AE(topics, text, terms):
    ABSENT.append(dict(lang="en", topics=set(topics.split()), text=text, terms=[t.lower() for t in terms]))


AZ("pet", "我家猫几岁了？", ["猫", "cat"])
AZ("pet", "用户养的狗是什么品种？", ["狗", "dog"])
AZ("parking car", "我的车停在几号车位？", ["车位", "停车", "parking"])
AZ("wifi", "家里的 Wi-Fi 密码是多少？", ["wi-fi", "wifi", "密码", "password"])
AZ("medical vitals", "下次体检约在哪天？", ["体检", "checkup"])
AZ("cache", "Redis 的端口是多少？", ["redis"])
AZ("birthdays", "我爸爸的生日是哪天？", ["生日", "birthday", "爸", "dad"])
AZ("tattoo", "用户身上的纹身是什么图案？", ["纹身", "tattoo"])
AZ("fishing", "我的钓鱼证什么时候到期？", ["钓", "fishing"])
AZ("color", "用户喜欢什么颜色？", ["颜色", "color", "colour"])
AZ("pet medical", "孩子的疫苗本放在哪里？", ["疫苗", "vaccin", "shot"])
AZ("annual-party", "公司年会在哪天举办？", ["年会"])
AZ("search k8s", "我们的 Elasticsearch 集群有几个节点？", ["elasticsearch", "节点", "node", "集群"])
AZ("queue", "消息队列用的是哪个？", ["消息队列", "queue", "kafka", "rocketmq"])
AZ("frontend", "前端用的是什么框架？", ["前端", "frontend", "react", "vue"])
AZ("movie", "用户最喜欢的电影是哪部？", ["电影", "movie", "film"])
AZ("passport", "我的护照号码是多少？", ["护照", "passport"])
AZ("utilities", "这个月的电费交了吗？", ["电费", "electric"])
AZ("gym", "我一般几点去健身房？", ["健身", "gym", "work out"])
AZ("bloodtype", "用户的血型是什么？", ["血型", "blood type"])
AZ("kids-activity", "我女儿的舞蹈课几点下课？", ["舞蹈", "dance"])
AZ("robot-vacuum appliance", "扫地机器人多久清理一次滤网？", ["扫地", "滤网", "filter", "vacuum"])
AZ("home-city", "用户在哪个城市出生？", ["出生", "born"])
AZ("rent", "房贷每月还多少？", ["房贷", "mortgage"])
AZ("medical", "上次看牙是什么时候？", ["牙", "dental", "dentist"])
AZ("cloud deploy k8s", "我们的测试环境地址是什么？", ["测试环境", "staging"])
AZ("home-repair", "小区物业的电话是多少？", ["物业", "电话", "phone"])
AZ("alcohol", "用户喜欢喝什么酒？", ["酒", "wine", "beer"])
AZ("car paperwork", "我的驾照什么时候要换？", ["驾照", "license", "licence"])
AZ("allergy", "孩子对什么东西过敏？", ["过敏", "allerg"])
AZ("language english-test", "用户的英语水平怎么样？", ["英语", "english", "ielts", "雅思"])
AZ("badminton", "周末的羽毛球场订好了吗？", ["羽毛球", "badminton"])
AZ("bank", "我的信用卡额度是多少？", ["信用卡", "credit card"])
AZ("runtime code-style", "项目用的 Python 版本是多少？", ["python"])
AZ("zodiac", "用户是什么星座？", ["星座"])
AZ("car", "上次换机油是什么时候？", ["机油", "oil"])
AZ("plants", "阳台的花多久浇一次水？", ["浇", "water", "花"])
AZ("testing", "代码覆盖率要求多少？", ["覆盖率", "coverage"])
AZ("housing-fund", "我的公积金账户余额还有多少？", ["公积金"])
AZ("sports-team", "用户支持哪个球队？", ["球队", "足球", "篮球", "football", "basketball", "soccer"])
AZ("expense", "公司的报销流程是怎样的？", ["报销", "expense", "reimburs"])
AZ("k8s", "我们的 Kubernetes 版本是多少？", ["kubernetes", "k8s", "k3s", "集群", "cluster"])
AZ("monitoring", "日志保存多久？", ["日志", "log"])
AZ("fruit", "用户喜欢吃什么水果？", ["水果", "fruit", "苹果", "apple", "香蕉"])
AZ("trip", "明年的家庭旅行计划去哪？", ["旅行", "trip", "旅游", "travel", "vacation"])
AZ("vitals", "我的体脂率是多少？", ["体脂", "body fat"])
AZ("building", "家里的门锁密码是多少？", ["门锁", "门禁", "密码", "door"])
AZ("payday bank", "每个月几号发工资？", ["工资", "发薪", "payday", "salary", "payroll"])
AZ("running", "我报名的马拉松是哪天？", ["马拉松", "marathon"])
AZ("social", "用户的微博账号是什么？", ["微博", "weibo"])
AZ("parcel neighbor", "我的快递放在哪个柜子？", ["快递", "柜", "package", "parcel"])
AZ("oncall", "这周谁负责值班？", ["值班", "on-call", "on call"])
AZ("contract", "合同模板放在哪里？", ["合同", "contract", "模板", "template"])
AZ("siblings", "用户有几个兄弟姐妹？", ["兄弟", "姐妹", "哥", "姐", "弟", "妹", "brother", "sister"])
AZ("github", "我的 GitHub 用户名是什么？", ["github"])
AZ("wedding friends anniversary", "婚礼定在哪家酒店？", ["婚", "wedding", "酒店", "hotel"])
AZ("ime", "用户习惯用什么输入法？", ["输入法"])
AZ("water-heater appliance", "家里的热水器是什么牌子？", ["热水器", "water heater"])
AZ("flight", "下周的飞机几点起飞？", ["飞机", "航班", "flight", "起飞", "机票"])
AZ("music kids-activity", "用户在学什么乐器？", ["乐器", "吉他", "钢琴", "guitar", "piano", "instrument"])
AZ("cache domain-cert storage-obj", "我们用的是哪家 CDN？", ["cdn", "cloudflare"])
AZ("okr", "季度 OKR 什么时候复盘？", ["okr", "复盘"])
AZ("pet", "猫砂多久换一次？", ["猫", "cat", "litter"])
AZ("kids-school", "孩子班主任的电话是多少？", ["班主任", "teacher", "老师"])
AZ("social-insurance", "我的社保是在哪个城市交的？", ["社保"])
AZ("vitals", "我最近的血糖怎么样？", ["血糖", "blood sugar", "glucose"])
AZ("hotpot", "用户喜欢吃火锅吗？", ["火锅", "hot pot", "hotpot"])
AZ("umbrella", "我的雨伞落在哪了？", ["雨伞", "伞", "umbrella"])

AE("pet", "What's my cat's name?", ["cat", "猫"])
AE("pet", "When is the dog's next vet visit?", ["dog", "vet", "狗", "兽医"])
AE("wifi", "What's the Wi-Fi password?", ["wi-fi", "wifi", "密码", "password"])
AE("cache", "Which port does Redis run on?", ["redis"])
AE("color", "What's the user's favorite color?", ["color", "colour", "颜色"])
AE("birthdays parents", "When is my mother-in-law's birthday?", ["birthday", "生日", "in-law", "婆"])
AE("parking car", "Where did I park the car?", ["park", "车位", "停车"])
AE("bloodtype", "What's my blood type?", ["blood type", "血型"])
AE("tattoo", "Does the user have any tattoos?", ["tattoo", "纹身"])
AE("pharmacy meds", "What time does the pharmacy close?", ["pharmacy", "药店", "walgreens"])
AE("medical", "Who is the user's dentist?", ["dentist", "dental", "牙"])
AE("k8s", "Which Kubernetes version is the cluster on?", ["kubernetes", "k8s", "k3s", "cluster", "集群"])
AE("incident-chat ci", "What's our Slack channel for releases?", ["slack", "channel", "频道"])
AE("leave", "How many vacation days do I have left?", ["vacation", "pto", "年假", "leave"])
AE("clothes", "What's the user's shoe size?", ["shoe", "鞋", "size", "尺码"])
AE("offsite", "When is the next team offsite?", ["offsite", "团建"])
AE("gym", "What's my gym locker combination?", ["gym", "locker", "健身"])
AE("flight", "Which airline does the user prefer?", ["airline", "flight", "航", "飞机", "mileage"])
AE("home-repair", "How much did the plumber charge last time?", ["plumber", "水管", "漏水", "维修"])
AE("friends kids-school", "What's the name of my daughter's best friend?", ["best friend", "闺蜜", "好朋友"])
AE("db cloud", "Where is the staging database hosted?", ["staging", "database", "数据库", "测试环境"])
AE("api-auth", "What's the timeout for API requests?", ["timeout", "超时"])
AE("music", "Does the user like jazz?", ["jazz", "music", "音乐", "爵士"])
AE("car", "When does my car registration expire?", ["car", "registration", "车"])
AE("search", "What's our Elasticsearch index name?", ["elasticsearch", "index", "索引"])
AE("home-repair rent", "Who is my landlord?", ["landlord", "房东"])
AE("dessert", "What's the user's favorite ice cream flavor?", ["ice cream", "冰淇淋", "flavor"])
AE("social marketing", "What's the shop's Instagram handle?", ["instagram", "小红书"])
AE("kids-school", "When is my son's parent-teacher meeting?", ["parent-teacher", "teacher", "家长会", "老师"])
AE("chores", "How much do we pay for trash collection?", ["trash", "garbage", "垃圾"])
AE("name", "What's the user's middle name?", ["middle name"])
AE("iac", "Which version of Terraform do we use?", ["terraform"])
AE("pool", "When does the swimming pool open?", ["pool", "swim", "游泳", "泳池"])
AE("employee-id", "What's my employee ID number?", ["employee id", "工号"])
AE("rent bank", "Which bank issued my mortgage?", ["mortgage", "房贷", "bank", "银行"])
AE("key", "Where do we keep the spare house key?", ["spare key", "钥匙"])
AE("sports-team", "What's the user's favorite sports team?", ["football", "basketball", "baseball", "soccer", "球队", "足球", "篮球"])
AE("marketing", "How many followers does our newsletter have?", ["newsletter", "subscriber", "公众号", "订阅"])
AE("medical", "When is my next flu shot?", ["flu", "shot", "vaccin", "疫苗"])
AE("groceries", "What time does the farmers market open?", ["farmers market", "market", "菜市场"])
AE("wifi", "What's the login for the router admin page?", ["router", "路由器"])
AE("baby", "Which hospital was my daughter born in?", ["hospital", "医院", "born"])
AE("parents", "How old is the user's grandmother?", ["grandma", "grandmother", "外婆", "奶奶"])
AE("cs", "What's the SLA for support tickets?", ["sla", "ticket", "工单", "support"])
AE("car", "What color is my car?", ["car", "车", "color"])
AE("toothbrush", "How often should I replace my toothbrush?", ["toothbrush", "牙刷"])
AE("cloud k8s", "What's the IP address of our staging server?", ["staging", "测试环境", "ip address"])
AE("reading", "Who is the user's favorite author?", ["author", "作家", "book", "书"])
AE("office", "What's the password for the printer?", ["printer", "打印机"])
AE("barber", "When did I last get a haircut?", ["haircut", "hair", "理发", "头发"])
AE("team-tz", "Which time zone is the Tokyo team in?", ["tokyo", "东京", "time zone", "时区"])
AE("coffee diet", "How much does the user spend on coffee each month?", ["coffee", "咖啡"])
AE("social", "What's the user's LinkedIn profile?", ["linkedin"])
AE("pet", "Which vet clinic do we use for the pets?", ["vet", "兽医", "宠物", "pet", "clinic", "诊所"])
AE("storage", "Where are the Christmas decorations stored?", ["christmas", "圣诞", "decoration"])
AE("insurance", "What's my health insurance deductible?", ["deductible", "insurance", "保险", "医疗险"])
AE("metrics", "How many monthly active users does the app have?", ["active users", "日活", "月活"])
AE("anniversary", "When is the user's wedding anniversary?", ["anniversary", "纪念日", "wedding", "结婚"])
AE("upload", "What's the maximum file upload size?", ["upload", "上传"])
AE("access", "How do I reset my VPN password?", ["vpn", "wireguard", "内网"])
AE("podcast", "Which podcast does the user listen to?", ["podcast", "播客"])
AE("job manager", "What's the name of our product manager?", ["product manager", "产品经理"])
AE("handed", "Is the user left-handed?", ["left-handed", "左撇子"])
AE("snow", "Where does the user like to go skiing?", ["ski", "滑雪"])
AE("breakfast", "What does my user like for breakfast?", ["breakfast", "早餐", "早饭"])
AE("bike", "Where do I store my bike?", ["bike", "单车", "自行车", "骑车"])


# --------------------------------------------------------------------------
# Assembly
# --------------------------------------------------------------------------
DOMAIN = {}
for _d, _ts in {
    "tech": "gateway cron analytics sms storage-obj rpc db ci deploy branching code-style oncall monitoring cache cloud api-auth runtime frontend code-review standup access queue testing secrets registry domain-cert versioning tracker backup incident-chat flags search k8s docs training",
    "work": "office manager leave payday expense canteen job commute",
    "home": "appliance parcel outing childcare pet kids-school kids-activity medical allergy chores plants car parking home-repair wifi birthdays partner parents helper utilities anniversary neighbor building laundry baby moving furniture",
    "student": "grad-exam group-meeting course thesis library language english-test dorm tuition lab assignment club self-study",
    "freelance": "client invoice tax contract portfolio timetrack",
    "health": "wellness running gym exercise2 steps sleep meds vitals diet coffee tea skincare",
    "travel": "biz-trip flight passport trip hotel travel-ins paperwork",
    "food": "staples recipe kitchen taste baking groceries mealprep",
    "finance": "bank budget invest rent insurance subscription phone-plan donation",
    "shop": "livestream shop-metrics shipping returns supplier payment promo cs warehouse product marketing store-platform reviews packaging",
    "life": "calligraphy music reading tv movie gaming device contact-pref photo volunteer friends barber clothes home-city craft",
}.items():
    for _t in _ts.split():
        DOMAIN[_t] = _d
DOMAINS = sorted(set(DOMAIN.values()))

CATS = ["keyword-zh", "keyword-en", "paraphrase-zh", "paraphrase-en", "cross-zh-en", "cross-en-zh",
        "absent-zh", "absent-en"]


def conflicts(a, b):
    """True if two memories may not share a namespace."""
    if a["topics"] & b["topics"]:
        return True
    la, lb = a["text"].lower(), b["text"].lower()
    return any(t in lb for t in a["terms"]) or any(t in la for t in b["terms"])


def mem_cat(m, kind):
    if kind == "kw":
        return "keyword-" + m["lang"]
    if kind == "para":
        return "paraphrase-" + m["lang"]
    return "cross-zh-en" if m["lang"] == "zh" else "cross-en-zh"


def main():
    assert not BAD, BAD
    rng = random.Random(SEED)
    for i, m in enumerate(MEMS):
        m["idx"] = i
        assert m["topic"] in DOMAIN, m["topic"]
    texts = [m["text"] for m in MEMS]
    assert len(texts) == len(set(texts)), "duplicate memory text"

    n_ns = 120
    sizes = [1] * 15 + [2] * 15 + [3] * 15 + [4] * 15 + [5] * 10 + [6] * 10 + [7] * 10 + [8] * 10 + [9] * 10 + [10] * 10
    rng.shuffle(sizes)
    modes = ["zh"] * 50 + ["en"] * 50 + ["mixed"] * 20
    rng.shuffle(modes)
    with_change = set(rng.sample(range(n_ns), n_ns // 2))

    usage = [0] * len(MEMS)
    namespaces = []
    for k in range(n_ns):
        size, mode = sizes[k], modes[k]
        nchange = 0
        if k in with_change:
            nchange = 1 if size < 4 else rng.choice([1, 2])
        primary = set(rng.sample(DOMAINS, rng.choice([1, 2])))
        for attempt in range(500):
            if mode == "zh":
                langs = ["zh"] * size
                if size >= 6 and rng.random() < 0.35:
                    langs[-1] = "en"
            elif mode == "en":
                langs = ["en"] * size
                if size >= 6 and rng.random() < 0.35:
                    langs[-1] = "zh"
            else:
                nz = size // 2 if size > 1 else rng.randint(0, 1)
                if size > 1 and size % 2 and rng.random() < 0.5:
                    nz += 1
                langs = ["zh"] * nz + ["en"] * (size - nz)
            rng.shuffle(langs)
            chflags = [False] * size
            for j in rng.sample(range(size), nchange):
                chflags[j] = True
            chosen = []
            ok = True
            for lang, chf in zip(langs, chflags):
                cands = [m for m in MEMS if m["lang"] == lang and m["ch"] == chf and usage[m["idx"]] < 2
                         and not any(conflicts(m, c) for c in chosen)]
                if not cands:
                    ok = False
                    break
                least = min(usage[m["idx"]] for m in cands)
                cands = [m for m in cands if usage[m["idx"]] == least]
                prim = [m for m in cands if DOMAIN[m["topic"]] in primary]
                if prim and rng.random() < 0.6:
                    cands = prim
                chosen.append(rng.choice(cands))
            if ok:
                break
        else:
            raise SystemExit("could not build namespace %d" % k)
        for m in chosen:
            usage[m["idx"]] += 1
        namespaces.append(dict(name="ph-%03d" % (k + 1), mode=mode, mems=chosen))

    # ---- timestamps
    lo = datetime(2023, 6, 1, 8, 0, 0)
    hi = datetime(2025, 12, 31, 20, 0, 0)
    for ns in namespaces:
        n = len(ns["mems"])
        gaps = [timedelta(days=rng.randint(1, 45), minutes=rng.randint(0, 600)) for _ in range(n - 1)]
        span = sum(gaps, timedelta())
        start_max = hi - span
        start = lo + timedelta(seconds=rng.randint(0, int((start_max - lo).total_seconds())))
        start = start.replace(second=0)
        stamps = [start]
        for g in gaps:
            stamps.append(stamps[-1] + g)
        ns["stamps"] = stamps
        last = stamps[-1]
        ns["as_of"] = (last + timedelta(days=rng.randint(2, 7))).replace(hour=0, minute=0, second=0)
        assert ns["as_of"] > last

    # ---- question plan
    n_questions, n_absent = {}, {}
    for i, ns in enumerate(namespaces):
        s = len(ns["mems"])
        if s <= 2:
            nq = 2
        elif s <= 4:
            nq = 3
        elif s <= 7:
            nq = rng.choice([3, 4])
        else:
            nq = 4
        n_questions[i] = nq
        n_absent[i] = 1
    big = [i for i, ns in enumerate(namespaces) if len(ns["mems"]) >= 5]
    for i in rng.sample(big, 12):
        n_absent[i] = 0
    total_gold = sum(n_questions[i] - n_absent[i] for i in n_questions)
    quota = {"cross-zh-en": 26, "cross-en-zh": 26}
    rest = total_gold - 52
    para_each = round(rest / 3 / 2)
    quota["paraphrase-zh"] = quota["paraphrase-en"] = para_each
    kw = rest - 2 * para_each
    quota["keyword-zh"] = kw // 2
    quota["keyword-en"] = kw - kw // 2
    init = dict(quota)

    used_pair = set()      # (memory idx, kind) already asked somewhere
    targeted = set()       # memory idx asked somewhere
    questions = {i: [] for i in range(n_ns)}
    order = list(range(n_ns))
    rng.shuffle(order)
    for i in order:
        ns = namespaces[i]
        asked = set()
        for _ in range(n_questions[i] - n_absent[i]):
            opts = []
            for j, m in enumerate(ns["mems"]):
                if j in asked:
                    continue
                for kind in ("kw", "para", "cross"):
                    if m[kind] is None or (m["idx"], kind) in used_pair:
                        continue
                    opts.append((j, kind, mem_cat(m, kind)))
            live = [o for o in opts if quota[o[2]] > 0]
            pool = live or opts
            assert pool, ns["name"]
            best = max(quota[o[2]] / init[o[2]] + rng.random() * 0.05 for o in pool)
            # pick the category with the highest remaining share (ties randomised)
            scored = {}
            for o in pool:
                scored.setdefault(o[2], []).append(o)
            cat = max(scored, key=lambda c: (quota[c] / init[c], rng.random()))
            cand = scored[cat]
            fresh = [o for o in cand if ns["mems"][o[0]]["idx"] not in targeted]
            j, kind, cat = rng.choice(fresh or cand)
            m = ns["mems"][j]
            asked.add(j)
            used_pair.add((m["idx"], kind))
            targeted.add(m["idx"])
            quota[cat] -= 1
            text = m["kw"] if kind == "kw" else m[kind]
            questions[i].append(dict(text=text, gold=[j], category=cat))

    # ---- absent questions
    absent_use = [0] * len(ABSENT)
    mixed_flip = 0
    for i in range(n_ns):
        ns = namespaces[i]
        for _ in range(n_absent[i]):
            if ns["mode"] == "mixed":
                lang = "zh" if mixed_flip % 2 == 0 else "en"
                mixed_flip += 1
            else:
                lang = ns["mode"]
            topics = set().union(*(m["topics"] for m in ns["mems"]))
            blob = "\n".join(m["text"].lower() for m in ns["mems"])
            cands = [a for a, q in enumerate(ABSENT) if q["lang"] == lang and absent_use[a] < 2
                     and not (q["topics"] & topics) and not any(t in blob for t in q["terms"])]
            assert cands, ns["name"]
            least = min(absent_use[a] for a in cands)
            a = rng.choice([a for a in cands if absent_use[a] == least])
            absent_use[a] += 1
            questions[i].append(dict(text=ABSENT[a]["text"], gold=[], category="absent-" + lang))

    # ---- write
    lines = []
    for i, ns in enumerate(namespaces):
        for j, (m, ts) in enumerate(zip(ns["mems"], ns["stamps"])):
            lines.append({"type": "memory", "namespace": ns["name"], "id": "m%d" % (j + 1),
                          "text": m["text"], "timestamp": ts.strftime("%Y-%m-%dT%H:%M:%SZ")})
        qs = questions[i]
        rng.shuffle(qs)
        for q_i, q in enumerate(qs):
            lines.append({"type": "question", "namespace": ns["name"], "id": "%s-q%d" % (ns["name"], q_i + 1),
                          "text": q["text"], "as_of": ns["as_of"].strftime("%Y-%m-%dT%H:%M:%SZ"),
                          "gold": ["m%d" % (g + 1) for g in q["gold"]], "category": q["category"]})
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        for obj in lines:
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")

    # ---- counts
    from collections import Counter
    size_c = Counter(len(ns["mems"]) for ns in namespaces)
    print("namespaces:", n_ns)
    print("namespaces by size:", dict(sorted(size_c.items())))
    print("  1-2: %d  3-4: %d  5-7: %d  8-10: %d" % (
        sum(size_c[s] for s in (1, 2)), sum(size_c[s] for s in (3, 4)),
        sum(size_c[s] for s in (5, 6, 7)), sum(size_c[s] for s in (8, 9, 10))))
    print("namespaces by language mode:", dict(Counter(ns["mode"] for ns in namespaces)))
    lang_c = Counter(m["lang"] for ns in namespaces for m in ns["mems"])
    print("memory records by language:", dict(lang_c))
    distinct = {m["idx"] for ns in namespaces for m in ns["mems"]}
    print("distinct memories used: zh %d, en %d (pool zh %d, en %d)" % (
        sum(1 for x in distinct if MEMS[x]["lang"] == "zh"), sum(1 for x in distinct if MEMS[x]["lang"] == "en"),
        sum(1 for m in MEMS if m["lang"] == "zh"), sum(1 for m in MEMS if m["lang"] == "en")))
    print("namespaces with a change memory:", sum(1 for ns in namespaces if any(m["ch"] for m in ns["mems"])))
    qc = Counter(q["category"] for i in questions for q in questions[i])
    print("questions:", sum(qc.values()))
    for c in CATS:
        print("  %-14s %d" % (c, qc[c]))
    print("wrote", OUT, "(%d lines)" % len(lines))


if __name__ == "__main__":
    main()
