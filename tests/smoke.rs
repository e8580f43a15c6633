mod common;
use redvote::{Order, Site};

#[test]
fn smoke() {
    let server = common::server();
    let mut con = common::con(&server);
    let site = Site::default();
    let id = site.post("user:1", "Hello", "http://x").run(&mut con).unwrap();
    assert_eq!(id, 1);
    let v = site.vote("user:2", "1").run(&mut con).unwrap();
    println!("{v:?}");
    let a = site.article("1", Some("user:2")).run(&mut con).unwrap();
    println!("{a:?}");
    let p = site.page(Order::Score, 1, None).run(&mut con).unwrap();
    println!("{p:?}");
    let e = site.vote("user:2", "1:x").run(&mut con).unwrap_err();
    println!("{e} {:?}", e.code());
    println!("{}", site.vote("u", "1"));
}
