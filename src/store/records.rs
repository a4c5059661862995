//! Rows as the database holds them, column by column (`sqlx::FromRow`), turned into the
//! store's own types at its edge: [`super::GameRow`] pairs the columns that only mean something
//! together (a clock, an offer).

use super::{ClockRow, GameRow, TurnRow};

/// A `games` row as the database holds it, column by column; [`GameRow`] pairs the columns
/// that only mean something together (a clock, an offer).
#[derive(sqlx::FromRow)]
pub(super) struct GameRecord {
    id: String,
    variant: String,
    options: String,
    time_control: String,
    white_secret_hash: Option<String>,
    black_secret_hash: Option<String>,
    status: String,
    result: Option<String>,
    termination: Option<String>,
    created_at: i64,
    updated_at: i64,
    version: i64,
    clock_white_ms: Option<i64>,
    clock_black_ms: Option<i64>,
    clock_at: Option<i64>,
    draw_offer_by: Option<String>,
    draw_offer_ply: Option<i64>,
    takeback_offer_by: Option<String>,
    takeback_offer_ply: Option<i64>,
    rematch_offer_by: Option<String>,
    rematch_id: Option<String>,
    open_challenge: bool,
    listed_until: Option<i64>,
    created_from: Option<String>,
    owner: Option<String>,
    epoch: i64,
    white_name: Option<String>,
    black_name: Option<String>,
}

impl From<GameRecord> for GameRow {
    fn from(r: GameRecord) -> GameRow {
        let clock = match (r.clock_white_ms, r.clock_black_ms, r.clock_at) {
            (Some(white_ms), Some(black_ms), Some(at)) => Some(ClockRow {
                white_ms,
                black_ms,
                at,
            }),
            _ => None,
        };
        GameRow {
            id: r.id,
            variant: r.variant,
            options: r.options,
            time_control: r.time_control,
            white_secret_hash: r.white_secret_hash,
            black_secret_hash: r.black_secret_hash,
            status: r.status,
            result: r.result,
            termination: r.termination,
            created_at: r.created_at,
            updated_at: r.updated_at,
            version: r.version,
            clock,
            draw_offer: r.draw_offer_by.zip(r.draw_offer_ply),
            takeback_offer: r.takeback_offer_by.zip(r.takeback_offer_ply),
            rematch_offer: r.rematch_offer_by,
            rematch_id: r.rematch_id,
            open_challenge: r.open_challenge,
            listed_until: r.listed_until,
            created_from: r.created_from,
            owner: r.owner,
            epoch: r.epoch,
            white_name: r.white_name,
            black_name: r.black_name,
        }
    }
}

/// A `turns` row as the database holds it.
#[derive(sqlx::FromRow)]
pub(super) struct TurnRecord {
    ply: i32,
    notation: String,
    played_at: i64,
    white_ms: Option<i64>,
    black_ms: Option<i64>,
}

impl From<TurnRecord> for TurnRow {
    fn from(r: TurnRecord) -> TurnRow {
        TurnRow {
            ply: i64::from(r.ply),
            notation: r.notation,
            played_at: r.played_at,
            clock: r
                .white_ms
                .zip(r.black_ms)
                .map(|(white, black)| [white, black]),
        }
    }
}
