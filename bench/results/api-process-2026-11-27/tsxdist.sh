T="/catalogue/collections/metadata%3Amain/items?q=flood&limit=10"
C="/catalogue/csw?service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record&resultType=results&elementSetName=summary&maxRecords=10&constraintLanguage=CQL_TEXT&constraint_language_version=1.1.0&constraint=AnyText%20LIKE%20%27%25ocean%25%27"
A="/catalogue/csw?service=CSW&version=2.0.2&request=GetRecords&mode=opensearch&q=soil&bbox=-10,40,20,60&maxRecords=10&outputFormat=application%2Fatom%2Bxml"
for r in 1 2; do for c in 1 16; do for name in T C A; do eval p=\$$name; for port in 7791 7792; do
 out=$(npx autocannon -j -c $c -d 5 "http://127.0.0.1:$port$p" 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(j.requests.average, j.latency.p50, j.latency.p99)})')
 echo "r$r c$c $name $([ $port = 7791 ] && echo tsx || echo dist) rps/p50/p99: $out"
done; done; done; done
