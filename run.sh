for round in 1 2 3; do
for v in old new; do
  sha=$([ $v = old ] && echo  || echo )
  redis-cli -p 7781 CONFIG RESETSTAT >/dev/null
  rps=$(redis-benchmark -p 7781 -n 100000 -c 50 -r 100000000 -q EVALSHA $sha 1 article: user:__rand_int__ 3 up | grep -o "[0-9.]* requests per second")
  usec=$(redis-cli -p 7781 INFO commandstats | grep evalsha | grep -o "usec_per_call=[0-9.]*")
  echo "$v $rps $usec"
done; done
