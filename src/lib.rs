#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod call;
pub mod campaign;
pub mod error;
pub mod model;
pub mod scripts;
pub mod server;
pub mod site;

pub use call::Call;
pub use campaign::{Campaign, CampaignSettings, Kind, Period, Ties};
pub use error::{Code, Error, RateLimited, Result};
pub use model::{
    Article, Config, ConfigUpdate, GroupChange, Order, Page, Ranking, Reranked, Vote, VoteOutcome,
};
pub use server::TempServer;
pub use site::Site;
pub mod seed;
