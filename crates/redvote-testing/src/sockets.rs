//! What a server has read of its connections, from the kernel's socket
//! table (Linux: `/proc/net/tcp`): how a test knows that a request reached
//! a stopped server, or that the server has started a command (it read it),
//! instead of sleeping and hoping.

use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpStream};

use crate::{wait_until, TempServer, PATIENCE};

/// One loopback TCP socket: its ports and its queues.
#[derive(Debug, Clone, Copy)]
struct Socket {
    local: u16,
    remote: u16,
    established: bool,
    /// Bytes sent, not yet acknowledged by the peer's kernel.
    unacked: u64,
    /// Bytes received, not yet read by the process.
    unread: u64,
}

/// Every IPv4 TCP socket of the machine (`/proc/net/tcp`).
fn sockets() -> Vec<Socket> {
    let table = std::fs::read_to_string("/proc/net/tcp").expect("read /proc/net/tcp (Linux)");
    table.lines().skip(1).filter_map(parse).collect()
}

/// `  0: 0100007F:1F90 0100007F:D2A4 01 00000000:00000000 ...`
fn parse(line: &str) -> Option<Socket> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let port = |addr: &str| u16::from_str_radix(addr.rsplit_once(':')?.1, 16).ok();
    let (tx, rx) = fields.get(4)?.split_once(':')?;
    Some(Socket {
        local: port(fields.get(1)?)?,
        remote: port(fields.get(2)?)?,
        established: *fields.get(3)? == "01",
        unacked: u64::from_str_radix(tx, 16).ok()?,
        unread: u64::from_str_radix(rx, 16).ok()?,
    })
}

/// A command sent on a connection of its own by [`TempServer::start_command`].
#[derive(Debug)]
pub struct Started {
    stream: TcpStream,
}

impl Started {
    /// Wait for the command's reply (its first line, e.g. `+OK`).
    pub fn reply(self) -> String {
        let mut line = String::new();
        BufReader::new(&self.stream)
            .read_line(&mut line)
            .expect("read the command's reply");
        let _ = self.stream.shutdown(Shutdown::Both);
        line.trim_end().to_string()
    }
}

impl TempServer {
    /// Bytes clients sent to the server that it has not read yet, over all
    /// its connections: nonzero while a stopped (SIGSTOP) server has a
    /// request waiting.
    pub fn unread_bytes(&self) -> u64 {
        sockets()
            .iter()
            .filter(|s| s.established && s.local == self.port())
            .map(|s| s.unread)
            .sum()
    }

    /// Send `args` as one command on a connection of its own, and return
    /// once the server has read it, so is running it (`DEBUG SLEEP 1`:
    /// the server is blocked from then on): its bytes left this side and
    /// none wait unread on the server's. [`Started::reply`] waits for the
    /// answer.
    pub fn start_command(&self, args: &[&str]) -> Started {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port())).expect("connect");
        let mut resp = format!("*{}\r\n", args.len());
        for a in args {
            resp.push_str(&format!("${}\r\n{a}\r\n", a.len()));
        }
        stream.write_all(resp.as_bytes()).expect("send the command");
        let mine = stream.local_addr().unwrap().port();
        let what = format!("the server read {args:?}");
        wait_until(&what, PATIENCE, || {
            let all = sockets();
            let find = |local, remote| {
                all.iter()
                    .find(|s| s.established && s.local == local && s.remote == remote)
                    .copied()
            };
            let sent = find(mine, self.port()).is_some_and(|s| s.unacked == 0);
            let read = find(self.port(), mine).is_some_and(|s| s.unread == 0);
            sent && read
        });
        Started { stream }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_line_parses() {
        let line = "   3: 0100007F:1F90 0100007F:D2A4 01 0000000A:00000020 00:00000000 \
                    00000000  1000        0 4242 1 0000000000000000 20 4 30 10 -1";
        let s = parse(line).unwrap();
        assert_eq!((s.local, s.remote, s.established), (0x1F90, 0xD2A4, true));
        assert_eq!((s.unacked, s.unread), (10, 32));
    }
}
