"""Engine-level timing of the page after a checkpoint in id order: search_after (before) against the
block range (after), interleaved, with page 1 as the yardstick. Prints JSON lines."""
import json, sys, time, urllib.request, os
U, I, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
def q(body):
    req = urllib.request.Request(f"{U}/{I}/_search?filter_path=took,hits.hits.sort", data=json.dumps(body).encode(), headers={'content-type':'application/json'})
    t=time.perf_counter(); r=json.load(urllib.request.urlopen(req)); return r, (time.perf_counter()-t)*1000
def idat(k): return f"cairn-42-{k:07d}"
def succ(p): return p[:-1]+chr(ord(p[-1])+1)
S=[{"id":"asc"}]
print(json.dumps({"engine_url": U, "index": I, "started": time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()), "load": os.getloadavg()}))
for off in [90000, 900000]:
  for rep in range(reps):
    a = idat(off + 4 + rep*10)  # the checkpoint before offset off+5+10*rep, inside its block of 100 ids
    cases = {
      'page1': {"size":10,"sort":S,"track_total_hits":True,"_source":["record","source"]},
      'search_after': {"size":10,"sort":S,"track_total_hits":True,"_source":["record","source"],"search_after":[a]},
      'block': {"size":10,"sort":S,"track_total_hits":False,"_source":["record","source"],"query":{"bool":{"filter":[{"range":{"id":{"gt":a,"lt":succ(a[:-2])}}}]}}},
      'count': {"size":0,"track_total_hits":True},
    }
    row = {"offset": off + 5 + rep*10, "load1": os.getloadavg()[0]}
    ref = None
    for k in (['search_after','block','page1','count'] if rep % 2 else ['page1','count','block','search_after']):
      r, ms = q(cases[k]); row[k+'_took'] = r['took']; row[k+'_ms'] = round(ms,1)
      if k in ('search_after','block'):
        s = [h['sort'][0] for h in r['hits']['hits']]
        if ref is None: ref = s
        assert s == ref and len(s) == 10, (k, s, ref)
    print(json.dumps(row))
