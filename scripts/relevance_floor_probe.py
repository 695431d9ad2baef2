"""The relevance floor on a small personal namespace, through the real CLI (BENCHMARKS.md,
"Relevance floor"): 20 questions about stored memories and 20 about things never stored, in
Chinese and English; prints what each returns with the default floor.

Usage: REARVIEW_BIN=target/release/rearview python3 scripts/relevance_floor_probe.py
"""
import json, subprocess, tempfile, os, sys
B=os.environ.get("REARVIEW_BIN", "target/release/rearview")
d=tempfile.mkdtemp(); db=os.path.join(d,"m.db")
mem=["我喜欢在周末去香山爬山","用户对花生过敏，点餐时要避开含花生的菜。","The deployment pipeline failed because the disk was full.",
"MCP 服务端口是 8765","数据库用的是 PostgreSQL 16，端口 5432","每天凌晨三点做一次全量备份","用户偏好深色主题","Alice's birthday is on March 3rd",
"The team standup is at 9:30 every weekday","项目截止日期是 12 月 20 日","I adopted a cat named Mochi last spring","我女儿在学钢琴，每周六上课",
"Redis 缓存的过期时间设为 10 分钟","The user prefers answers in Chinese","上周去杭州出差，住在西湖边","Bob moved from Berlin to Lisbon in 2024",
"用户的邮箱是 zhang@example.com","The API rate limit is 50 requests per second","我每天早上喝一杯黑咖啡","The staging server runs Ubuntu 24.04"]
related=["周末爱好","户外运动","花生","端口 8765","PostgreSQL 端口","备份时间","主题颜色","When is Alice's birthday?","standup time","截止日期",
"pet cat name","孩子学什么乐器","Redis 过期","language preference","出差去了哪里","Where does Bob live?","邮箱地址","rate limit","早上喝什么","staging OS"]
unrelated=["火星探测器的最新进展","how to bake sourdough bread","量子计算的基本原理","Who won the 1998 World Cup?","股票市场今天怎么样","recipe for lasagna",
"北极熊的栖息地","explain photosynthesis","足球比赛规则","the history of the Roman empire","如何学习弹吉他","best hiking boots 2025","明朝的皇帝有哪些","tax filing deadline in Germany",
"机器学习入门","what is the capital of Australia","唐诗三百首","how tall is Mount Everest","电动汽车续航","jazz music recommendations"]
env = dict(os.environ, REARVIEW_DB=db)
for m in mem:
    subprocess.run([B, "add", m], env=env, check=True, capture_output=True)


def recall(q):
    r = subprocess.run([B, "recall", q, "--json", "--no-count", "-k", "5"],
                       env=env, check=True, capture_output=True, text=True)
    return json.loads(r.stdout)


for name, qs in (("about stored memories", related), ("about things never stored", unrelated)):
    total = empty = 0
    for q in qs:
        j = recall(q)
        n = len(j["hits"])
        total += n
        empty += n == 0
        first = j["hits"][0]["memory"]["content"][:24] if n else "-"
        print(f"{q[:20]:22} {n} hits, {j['below_floor']} below the floor; first: {first}")
    print(f"== {name}: {total} hits over {len(qs)} queries, {empty} empty\n")
