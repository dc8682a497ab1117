# tests/demo/10-schema.sh - sourced by tests/demo.sh ($SAMPLE, $DEMO set).
echo "\$ rpd-schema --info $SAMPLE"
rpd-schema --info "$SAMPLE"
echo
echo "\$ sqlite3 -header -column $SAMPLE 'select * from ktop limit 5'  (kernels by GPU time)"
sqlite3 -header -column "$SAMPLE" "select substr(Name, 1, 60) as Name, TotalCalls, TotalDuration_us, round(Ave_us, 1) as Ave_us, round(Percentage, 2) as Pct from ktop limit 5"
echo
echo "\$ rpd-synth --schema 2 ... && rpd-schema --upgrade (v2 -> v3)"
rpd-synth --seed 2 --api 5000 --schema 2 -o "$DEMO/old-v2.rpd" --force
rpd-schema --upgrade "$DEMO/old-v2.rpd" -o "$DEMO/upgraded-v3.rpd"
sqlite3 -header -column "$DEMO/upgraded-v3.rpd" "select apiName, count(*) as calls from api group by apiName order by calls desc limit 5"
