#!/usr/bin/env python3
"""hot_designs.py: where a buffered vote's server instructions (Ir) go, and
what the designs that would cut them save (docs/benchmark.md, "Hot
campaigns: where the cost is").

    python3 crates/redvote-bench/tools/hot_designs.py [OUT_DIR]

Needs valgrind (callgrind_control, callgrind_annotate), redis-server and
python3 with redis-py (the venv `bash tests/run --setup` makes:
~/.cache/redvote/pyvenv/bin/python). Talks only to the server it starts.

Method: one redis-server under callgrind, counting only inside
processCommand (as redvote_testing::callgrind: a command's execution,
scripts included, without its socket I/O and RESP parsing), on the hot
section's board (hour, day, week, month, total; carry 0.1; competition
ties; 100 options; a new user a vote, the i-th for option i x 7). Each
figure is the Ir of N calls after 300 warm-up calls, divided by N:

- intake: `campaign_vote` on a buffered campaign (fold_ms 60000, so no
  fold runs), with and without a vote id; of it, the commands the script
  sent (callgrind_annotate's inclusive scriptCall) and the rest (Lua);
- the same code loaded as a function library (FUNCTION LOAD once, FCALL
  a vote): what running the top level once, not on every call, saves;
- the floor: a script that sends the same commands (HMGET of the root,
  HGET of the weight, the id's SET NX EX, RPUSH, HINCRBY) and checks
  almost nothing;
- fold: `campaign_fold` draining 900 buffered votes, a pair; of it, the
  `ZADD`s (zaddCommand inclusive);
- one member's score update by a variadic ZADD (20 members a call) on a
  100-member zset (listpack) with whole and with fractional scores, and
  on a 1,000-member one (skiplist).

The seed's 16 commands are not compared here: processCommand leaves out
the parsing and I/O of its 16 requests, which INFO cpu (the hot section)
counts. Writes OUT_DIR/hot-designs.json and OUT_DIR/table.md.
"""
import glob
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

import redis

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
N = 100


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    """A throwaway redis-server under callgrind."""

    def __init__(self):
        self.dir = tempfile.mkdtemp()
        port = free_port()
        self.proc = subprocess.Popen(
            ['valgrind', '--tool=callgrind', '--collect-atstart=no', '--toggle-collect=processCommand',
             f'--callgrind-out-file={self.dir}/cg.out', 'redis-server', '--port', str(port), '--bind', '127.0.0.1',
             '--save', '', '--appendonly', 'no', '--dir', self.dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.r = redis.Redis(port=port)
        deadline = time.time() + 120
        while True:
            try:
                self.r.ping()
                break
            except redis.ConnectionError:
                if time.time() > deadline:
                    sys.exit('hot_designs.py: redis-server under valgrind did not answer within 120 s')
                time.sleep(0.2)

    def ctl(self, *args):
        subprocess.run(['callgrind_control', *args, str(self.proc.pid)], capture_output=True, check=False)

    def zero(self):
        self.ctl('--zero')

    def dump(self, functions=()):
        """The Ir since zero(), and the inclusive Ir of each of `functions`."""
        for f in glob.glob(f'{self.dir}/cg.out*'):
            os.remove(f)
        self.ctl('--dump')
        out = next(iter(glob.glob(f'{self.dir}/cg.out*')))
        total = int(re.search(r'^summary: (\d+)', open(out).read(), re.M).group(1))
        parts = {}
        if functions:
            text = subprocess.run(['callgrind_annotate', '--inclusive=yes', out], capture_output=True,
                                  text=True).stdout
            for name in functions:
                m = re.search(r'^\s*([\d,]+) .*\?\?\?:' + name + r' ', text, re.M)
                parts[name] = int(m.group(1).replace(',', '')) if m else 0
        return total, parts

    def close(self):
        self.proc.kill()


def settings():
    return {'offset': '+08:00', 'mode': 'buffered', 'fold_ms': 60000,
            'boards': {'stars': {'periods': ['hour', 'day', 'week', 'month', 'total'], 'carry': '0.1',
                                 'ties': 'competition', 'options': {f'o{i}': {'weight': 1} for i in range(100)}}}}


FLOOR = """
local root = KEYS[1]
local ns = root:sub(1, -9)
local c = redis.call('HMGET', root, 'layout', 'offset', 'start', 'end', 'mode', 'fold_ms', 'fold_due')
local user, id, board, option = ARGV[1], ARGV[6], ARGV[7], ARGV[8]
if #user == 0 or user:find('%c') then return redis.error_reply('REDVOTE_INVALID_USER') end
local w = redis.call('HGET', ns .. 'weights:' .. board, option)
if not w then return redis.error_reply('REDVOTE_UNKNOWN_OPTION') end
local t = redis.call('TIME')
if id ~= '' and not redis.call('SET', ns .. 'vid:' .. id, user .. '|' .. board .. '|' .. option, 'NX', 'EX', 86400) then
  return 'replay'
end
redis.call('RPUSH', ns .. 'buf:' .. board .. ':' .. option, t[1] .. '\\t' .. user .. '\\t' .. w)
redis.call('HINCRBY', root, 'buffered', 1)
return {{board, option, {}, '', t[1]}}
"""


def library(src):
    """campaign_vote.lua as a function library: its top level run once at
    FUNCTION LOAD; KEYS and ARGV become upvalues set by each FCALL. (A
    library's load sees no redis.call, math or string: the two top-level
    captures of them become wrappers.)"""
    lines = src.split('\n')
    epi = next(i for i, line in enumerate(lines) if line.startswith('-- epilogue: what every script closes with'))
    body = '\n'.join(lines[1:epi])
    body = body.replace('local rcall = redis.call', 'local rcall = function(...) return redis.call(...) end', 1)
    body = body.replace('local floor, format = math.floor, string.format',
                        'local floor, format = function(x) return math.floor(x) end, '
                        'function(...) return string.format(...) end', 1)
    return ('#!lua name=redvote_design\nlocal KEYS, ARGV\n' + body + '\nlocal function run()\n'
            + '\n'.join(lines[epi:]) + '\nend\nredis.register_function("campaign_vote", '
            'function(keys, args) KEYS, ARGV = keys, args; return run() end)\n')


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, 'crates', 'redvote-bench', 'runs', time.strftime('%Y-%m-%d') + '-hot-designs')
    s = Server()
    r = s.r
    src = open(f'{ROOT}/lua/campaign_vote.lua').read()
    conf = r.script_load(open(f'{ROOT}/lua/campaign_configure.lua').read())
    fold = r.script_load(open(f'{ROOT}/lua/campaign_fold.lua').read())
    vote = r.script_load(src)
    floor = r.script_load(FLOOR)
    r.execute_command('FUNCTION', 'LOAD', 'REPLACE', library(src))
    user = [0]

    def votes(root, how, with_id, n):
        p = r.pipeline(transaction=False)
        for _ in range(n):
            user[0] += 1
            u = user[0]
            args = [f'user{u:07d}', '', '', '', '', f'id{u}' if with_id else '', 'stars', f'o{u * 7 % 100}']
            if how == 'fcall':
                p.execute_command('FCALL', 'campaign_vote', 1, root, *args)
            else:
                p.evalsha({'evalsha': vote, 'floor': floor}[how], 1, root, *args)
        for reply in p.execute():
            if isinstance(reply, Exception):
                sys.exit(f'hot_designs.py: {how}: {reply}')

    result = {'calls': N, 'redis': r.info('server')['redis_version'], 'intake': [], 'fold': {}, 'zadd': []}
    for with_id in (False, True):
        for how in ('evalsha', 'fcall', 'floor'):
            root = '{c:%s%d}:campaign' % (how, with_id)
            r.evalsha(conf, 1, root, json.dumps(settings()))
            votes(root, how, with_id, 300)
            s.zero()
            votes(root, how, with_id, N)
            total, parts = s.dump(('scriptCall',))
            result['intake'].append({'design': how, 'vote_id': with_id, 'ir': round(total / N),
                                     'commands': round(parts['scriptCall'] / N)})
            print(result['intake'][-1], flush=True)

    root = '{c:fold}:campaign'
    r.evalsha(conf, 1, root, json.dumps(settings()))
    votes(root, 'evalsha', True, 2000)
    while r.evalsha(fold, 1, root, '1000')[1] > 0:
        pass
    total = zadd = pairs = 0
    for _ in range(3):
        votes(root, 'evalsha', True, 900)
        s.zero()
        while True:
            f = r.evalsha(fold, 1, root, '1000')
            pairs += f[0]
            if f[1] == 0:
                break
        t, parts = s.dump(('zaddCommand',))
        total, zadd = total + t, zadd + parts['zaddCommand']
    result['fold'] = {'pairs': pairs, 'ir_a_pair': round(total / pairs), 'zadd_a_pair': round(zadd / pairs)}
    print(result['fold'], flush=True)

    update = r.script_load("""
for j = 1, 20 do
  local args = {}
  for i = 0, 19 do
    args[#args + 1] = ARGV[1] == '1' and string.format('%.1f', j * 1000 + i * 10 + 0.1) or string.format('%d', j * 1000 + i * 10)
    args[#args + 1] = 'o' .. i
  end
  redis.call('ZADD', KEYS[1], unpack(args))
end
return 1""")
    for members, fractional in ((100, False), (100, True), (1000, False), (1000, True)):
        key = f'z{members}{int(fractional)}'
        r.zadd(key, {f'o{i}': i * 10 + (0.1 if fractional else 0) for i in range(members)})
        s.zero()
        for _ in range(5):
            r.evalsha(update, 1, key, '1' if fractional else '0')
        total, parts = s.dump(('zaddCommand',))
        result['zadd'].append({'members': members, 'encoding': r.object('encoding', key).decode(),
                               'scores': 'fractional' if fractional else 'whole',
                               'ir_an_update': round(parts['zaddCommand'] / (5 * 20 * 20))})
        print(result['zadd'][-1], flush=True)
    s.close()

    os.makedirs(out_dir, exist_ok=True)
    json.dump(result, open(f'{out_dir}/hot-designs.json', 'w'), indent=1)
    open(f'{out_dir}/table.md', 'w').write(table(result))
    print(table(result))


def table(res):
    names = {'evalsha': 'as shipped (EVALSHA)', 'fcall': 'the same code as a function library (FCALL)',
             'floor': 'the floor: the same commands, almost no checks'}
    rows = [f"Run of {time.strftime('%Y-%m-%d')} on Redis {res['redis']}, {res['calls']} calls a row, "
            'Ir inside processCommand.', '',
            '| buffered intake | vote id | Ir a vote | of it, commands | of it, Lua |', '| --- | --- | --- | --- | --- |']
    for row in res['intake']:
        rows.append(f"| {names[row['design']]} | {'yes' if row['vote_id'] else 'no'} | {row['ir']:,} | "
                    f"{row['commands']:,} | {row['ir'] - row['commands']:,} |")
    f = res['fold']
    rows += ['', '| fold (900 buffered votes drained) | Ir a pair | of it, ZADD |', '| --- | --- | --- |',
             f"| {f['pairs']} pairs | {f['ir_a_pair']:,} | {f['zadd_a_pair']:,} |", '',
             '| one member updated by a variadic ZADD | encoding | scores | Ir an update |', '| --- | --- | --- | --- |']
    for z in res['zadd']:
        rows.append(f"| {z['members']} members | {z['encoding']} | {z['scores']} | {z['ir_an_update']:,} |")
    return '\n'.join(rows) + '\n'


if __name__ == '__main__':
    main()
