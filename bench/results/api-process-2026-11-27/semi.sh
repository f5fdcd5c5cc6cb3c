T="/catalogue/collections/metadata%3Amain/items?q=flood&limit=10"
S="/catalogue/collections/metadata%3Amain/items?sortby=-updated&limit=10"
C="/catalogue/csw?service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record&resultType=results&elementSetName=summary&maxRecords=10&constraintLanguage=CQL_TEXT&constraint_language_version=1.1.0&constraint=AnyText%20LIKE%20%27%25ocean%25%27"
for r in 1 2 3; do for name in T S C; do eval p=\$$name; ports="7791 7792"; [ $((r % 2)) = 0 ] && ports="7792 7791"; for port in $ports; do
 out=$(npx autocannon -j -c 64 -d 5 "http://127.0.0.1:$port$p" 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(j.requests.average, j.latency.p50, j.latency.p99)})')
 echo "r$r c64 $name $([ $port = 7791 ] && echo default || echo semi32) rps/p50/p99: $out"
done; done; done
