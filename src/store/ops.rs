//! The writes, one function each, inside the writer's open transaction ([`Tx`]): what each
//! [`WriteOp`] changes, in SQL written once for both dialects. The writer ([`super::writer`])
//! only batches; [`apply`] is where a write becomes its statements. The writes of a game that
//! check its version go through the one fence ([`super::tx`]).

use super::tx::{Dialect, Fence, Tx, bind_clock, fence, fenced, on_tx};
use super::{ChatRow, ClockRow, GameEnd, GameRow, HANDOFF_CODES_PER_GAME, HandoffRow};
use super::{OfferKind, SeatColumn, WriteOp};
use sqlx::{PgConnection, SqliteConnection};

/// Applies one write in `tx`: whether it took effect.
pub(super) async fn apply(tx: &mut Tx<'_>, op: &WriteOp) -> Result<bool, sqlx::Error> {
    let fence = |id, seen: &i64, epoch: &i64| Fence {
        id,
        seen: *seen,
        epoch: *epoch,
    };
    match op {
        WriteOp::CreateGame(game) => create_game(tx, game).await,
        WriteOp::StartRematch {
            id,
            seen,
            game,
            epoch,
        } => start_rematch(tx, fence(id, seen, epoch), game).await,
        WriteOp::ClaimSeat {
            id,
            seen,
            seat,
            hash,
            name,
            at,
            clock,
            epoch,
        } => claim_seat(tx, fence(id, seen, epoch), *seat, hash, name, *at, *clock).await,
        WriteOp::SetName {
            id,
            seen,
            seat,
            name,
            epoch,
        } => set_name(tx, fence(id, seen, epoch), *seat, name).await,
        WriteOp::AppendTurn {
            id,
            seen,
            ply,
            notation,
            at,
            clock,
            end,
            epoch,
        } => {
            let turn = (*ply, notation.as_str(), *at, *clock);
            append_turn(tx, fence(id, seen, epoch), turn, end.as_ref()).await
        }
        WriteOp::SetOffer {
            id,
            seen,
            kind,
            by,
            at,
            epoch,
        } => set_offer(tx, fence(id, seen, epoch), *kind, by, *at).await,
        WriteOp::TakeBack {
            id,
            seen,
            from_ply,
            at,
            clock,
            epoch,
        } => take_back(tx, fence(id, seen, epoch), *from_ply, *at, *clock).await,
        WriteOp::Finish {
            id,
            seen,
            end,
            at,
            clock,
            epoch,
        } => finish(tx, fence(id, seen, epoch), end, *at, *clock).await,
        WriteOp::Chat {
            line,
            keep_from,
            epoch,
        } => chat(tx, line, *keep_from, *epoch).await,
        WriteOp::PutHandoff { code, now } => put_handoff(tx, code, *now).await,
        WriteOp::TakeHandoff { code_hash, now } => take_handoff(tx, code_hash, *now).await,
        WriteOp::MoveSeat {
            id,
            seen,
            seat,
            from_hash,
            to_hash,
            browser,
            at,
            epoch,
        } => {
            let hashes = (from_hash.as_str(), to_hash.as_str());
            move_seat(tx, fence(id, seen, epoch), *seat, hashes, browser, *at).await
        }
    }
}

/// [`WriteOp::CreateGame`]: stores a new game, unless its id is taken.
async fn create_game(tx: &mut Tx<'_>, g: &GameRow) -> Result<bool, sqlx::Error> {
    on_tx!(tx, conn => {
        let insert = sqlx::query(
            "INSERT INTO games (id, variant, options, time_control, white_secret_hash, \
             black_secret_hash, status, result, termination, created_at, updated_at, version, \
             clock_white_ms, clock_black_ms, clock_at, open_challenge, owner, epoch, \
             listed_until, created_from, white_name, black_name) VALUES ($1, $2, $3, $4, $5, \
             $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22) \
             ON CONFLICT DO NOTHING",
        )
        .bind(&g.id)
        .bind(&g.variant)
        .bind(&g.options)
        .bind(&g.time_control)
        .bind(&g.white_secret_hash)
        .bind(&g.black_secret_hash)
        .bind(&g.status)
        .bind(&g.result)
        .bind(&g.termination)
        .bind(g.created_at)
        .bind(g.updated_at)
        .bind(g.version);
        let insert = bind_clock(insert, g.clock)
            .bind(g.open_challenge)
            .bind(&g.owner)
            .bind(g.epoch)
            .bind(g.listed_until)
            .bind(&g.created_from)
            .bind(&g.white_name)
            .bind(&g.black_name);
        conn.changes_one(insert).await
    })
}

/// [`WriteOp::StartRematch`]: links the finished game to its rematch, then stores the rematch.
async fn start_rematch(
    tx: &mut Tx<'_>,
    fence: Fence<'_>,
    game: &GameRow,
) -> Result<bool, sqlx::Error> {
    let sql = concat!(
        "UPDATE games SET rematch_id = $4, rematch_offer_by = NULL, updated_at = $5, \
         version = version + 1 WHERE ",
        fence!(),
        " AND status = 'finished' AND rematch_id IS NULL"
    );
    let linked = on_tx!(&mut *tx, conn => {
        let link = fenced(&mut *conn, sql, fence).await?;
        conn.changes_one(link.bind(&game.id).bind(game.created_at)).await?
    });
    Ok(linked && create_game(tx, game).await?)
}

/// [`WriteOp::ClaimSeat`]: takes an empty seat, starting the game (and its clocks).
async fn claim_seat(
    tx: &mut Tx<'_>,
    fence: Fence<'_>,
    seat: SeatColumn,
    hash: &str,
    name: &Option<String>,
    at: i64,
    clock: Option<ClockRow>,
) -> Result<bool, sqlx::Error> {
    let sql = match seat {
        SeatColumn::White => concat!(
            "UPDATE games SET white_secret_hash = $4, white_name = $5, status = 'playing', \
             updated_at = $6, clock_white_ms = $7, clock_black_ms = $8, clock_at = $9, \
             version = version + 1 WHERE ",
            fence!(),
            " AND status = 'waiting' AND white_secret_hash IS NULL"
        ),
        SeatColumn::Black => concat!(
            "UPDATE games SET black_secret_hash = $4, black_name = $5, status = 'playing', \
             updated_at = $6, clock_white_ms = $7, clock_black_ms = $8, clock_at = $9, \
             version = version + 1 WHERE ",
            fence!(),
            " AND status = 'waiting' AND black_secret_hash IS NULL"
        ),
    };
    on_tx!(tx, conn => {
        let claim = fenced(&mut *conn, sql, fence).await?.bind(hash).bind(name).bind(at);
        conn.changes_one(bind_clock(claim, clock)).await
    })
}

/// [`WriteOp::SetName`]: names a taken seat's player. A name is the seat's, so it changes the
/// game's version (clients see it in the state), but not when the game last changed in play.
async fn set_name(
    tx: &mut Tx<'_>,
    fence: Fence<'_>,
    seat: SeatColumn,
    name: &str,
) -> Result<bool, sqlx::Error> {
    let sql = match seat {
        SeatColumn::White => concat!(
            "UPDATE games SET white_name = $4, version = version + 1 WHERE ",
            fence!(),
            " AND white_secret_hash IS NOT NULL"
        ),
        SeatColumn::Black => concat!(
            "UPDATE games SET black_name = $4, version = version + 1 WHERE ",
            fence!(),
            " AND black_secret_hash IS NOT NULL"
        ),
    };
    on_tx!(tx, conn => {
        let rename = fenced(&mut *conn, sql, fence).await?.bind(name);
        conn.changes_one(rename).await
    })
}

/// A turn's own columns: its ply, its notation, when, and both clocks right after it.
type Turn<'a> = (i64, &'a str, i64, Option<[i64; 2]>);

/// [`WriteOp::AppendTurn`] on its own (the writer inserts plain turns together): a turn at its
/// ply; one that ends its game is stored with the end. Its fence is the `turns` table's own: the
/// turn carries the version it was decided against and its owner's epoch, which the schema
/// checks against its game.
async fn append_turn(
    tx: &mut Tx<'_>,
    fence: Fence<'_>,
    (ply, notation, at, clock): Turn<'_>,
    end: Option<&GameEnd>,
) -> Result<bool, sqlx::Error> {
    on_tx!(tx, conn => {
        let insert = sqlx::query(
            "INSERT INTO turns (game_id, ply, notation, played_at, white_ms, black_ms, \
             base_version, epoch) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING",
        )
        .bind(fence.id)
        .bind(ply as i32)
        .bind(notation)
        .bind(at)
        .bind(clock.map(|c| c[0]))
        .bind(clock.map(|c| c[1]))
        .bind(fence.seen - ply)
        .bind(fence.epoch);
        let inserted = conn.changes_one(insert).await?;
        if let (true, Some(end)) = (inserted, end) {
            sqlx::query(
                "UPDATE games SET updated_at = $1, status = 'finished', result = $2, \
                 termination = $3 WHERE id = $4 AND epoch = $5",
            )
            .bind(at)
            .bind(&end.result)
            .bind(&end.termination)
            .bind(fence.id)
            .bind(fence.epoch)
            .execute(&mut *conn)
            .await?;
        }
        Ok(inserted)
    })
}

/// [`WriteOp::SetOffer`]: sets or clears a pending offer.
async fn set_offer(
    tx: &mut Tx<'_>,
    fence: Fence<'_>,
    kind: OfferKind,
    by: &Option<(String, i64)>,
    at: i64,
) -> Result<bool, sqlx::Error> {
    let sql = match kind {
        OfferKind::Draw => concat!(
            "UPDATE games SET draw_offer_by = $4, draw_offer_ply = $5, updated_at = $6, \
             version = version + 1 WHERE ",
            fence!(),
            " AND status <> 'finished'"
        ),
        OfferKind::Takeback => concat!(
            "UPDATE games SET takeback_offer_by = $4, takeback_offer_ply = $5, updated_at = $6, \
             version = version + 1 WHERE ",
            fence!(),
            " AND status <> 'finished'"
        ),
        OfferKind::Rematch => concat!(
            "UPDATE games SET rematch_offer_by = $4, updated_at = $5, version = version + 1 \
             WHERE ",
            fence!(),
            " AND status = 'finished' AND rematch_id IS NULL"
        ),
    };
    on_tx!(tx, conn => {
        let side = by.as_ref().map(|(by, _)| by.clone());
        let mut offer = fenced(&mut *conn, sql, fence).await?.bind(side);
        // A rematch offer comes after the end: it has no ply.
        if kind != OfferKind::Rematch {
            offer = offer.bind(by.as_ref().map(|(_, ply)| *ply));
        }
        conn.changes_one(offer.bind(at)).await
    })
}

/// [`WriteOp::TakeBack`]: takes back every turn from `from_ply` on, clearing the offers. The
/// version keeps the turns it takes back, so that it never goes back.
async fn take_back(
    tx: &mut Tx<'_>,
    fence: Fence<'_>,
    from_ply: i64,
    at: i64,
    clock: Option<ClockRow>,
) -> Result<bool, sqlx::Error> {
    let sql = concat!(
        "UPDATE games SET updated_at = $4, clock_white_ms = $5, clock_black_ms = $6, \
         clock_at = $7, draw_offer_by = NULL, draw_offer_ply = NULL, takeback_offer_by = NULL, \
         takeback_offer_ply = NULL, version = version + 1 + (SELECT COUNT(*) FROM turns \
         WHERE game_id = $1 AND ply >= $8) WHERE ",
        fence!(),
        " AND status = 'playing'"
    );
    on_tx!(tx, conn => {
        let reopen = fenced(&mut *conn, sql, fence).await?.bind(at);
        let open = conn
            .changes_one(bind_clock(reopen, clock).bind(from_ply as i32))
            .await?;
        if open {
            sqlx::query("DELETE FROM turns WHERE game_id = $1 AND ply >= $2")
                .bind(fence.id)
                .bind(from_ply as i32)
                .execute(&mut *conn)
                .await?;
        }
        Ok(open)
    })
}

/// [`WriteOp::Finish`]: ends a game off the board.
async fn finish(
    tx: &mut Tx<'_>,
    fence: Fence<'_>,
    end: &GameEnd,
    at: i64,
    clock: Option<ClockRow>,
) -> Result<bool, sqlx::Error> {
    let sql = concat!(
        "UPDATE games SET status = 'finished', result = $4, termination = $5, updated_at = $6, \
         clock_white_ms = COALESCE($7, clock_white_ms), \
         clock_black_ms = COALESCE($8, clock_black_ms), clock_at = COALESCE($9, clock_at), \
         version = version + 1 WHERE ",
        fence!(),
        " AND status <> 'finished'"
    );
    on_tx!(tx, conn => {
        let end = fenced(&mut *conn, sql, fence)
            .await?
            .bind(&end.result)
            .bind(&end.termination)
            .bind(at);
        conn.changes_one(bind_clock(end, clock)).await
    })
}

/// [`WriteOp::Chat`]: a line of chat, only the next number of its chat (so that a chat has no
/// gaps) and only from the game's owner (its epoch: a chat is not part of the game's version).
/// Then the lines it pushed out go.
async fn chat(
    tx: &mut Tx<'_>,
    line: &ChatRow,
    keep_from: i64,
    epoch: i64,
) -> Result<bool, sqlx::Error> {
    on_tx!(tx, conn => {
        let insert = sqlx::query(
            "INSERT INTO chat_lines (game_id, room, seq, author, body, said_at, author_name) \
             SELECT $1, $2, $3, $4, $5, $6, $8 WHERE $3 = 1 + COALESCE((SELECT MAX(seq) \
             FROM chat_lines WHERE game_id = $1 AND room = $2), 0) \
             AND EXISTS (SELECT 1 FROM games WHERE id = $1 AND epoch = $7) \
             ON CONFLICT DO NOTHING",
        )
        .bind(&line.game_id)
        .bind(&line.room)
        .bind(line.seq as i32)
        .bind(&line.author)
        .bind(&line.body)
        .bind(line.said_at)
        .bind(epoch)
        .bind(&line.author_name);
        let said = conn.changes_one(insert).await?;
        if said {
            sqlx::query("DELETE FROM chat_lines WHERE game_id = $1 AND room = $2 AND seq < $3")
                .bind(&line.game_id)
                .bind(&line.room)
                .bind(keep_from as i32)
                .execute(&mut *conn)
                .await?;
        }
        Ok(said)
    })
}

/// [`WriteOp::PutHandoff`]: clears the expired codes, then stores one unless its game has as
/// many as it may.
async fn put_handoff(tx: &mut Tx<'_>, code: &HandoffRow, now: i64) -> Result<bool, sqlx::Error> {
    on_tx!(tx, conn => {
        sqlx::query("DELETE FROM handoff_codes WHERE expires_at <= $1")
            .bind(now)
            .execute(&mut *conn)
            .await?;
        let insert = sqlx::query(
            "INSERT INTO handoff_codes (code_hash, game_id, sealed, expires_at, keeps) \
             SELECT $1, $2, $3, $4, $6 WHERE (SELECT COUNT(*) FROM handoff_codes \
             WHERE game_id = $2) < $5 ON CONFLICT DO NOTHING",
        )
        .bind(&code.code_hash)
        .bind(&code.game_id)
        .bind(&code.sealed)
        .bind(code.expires_at)
        .bind(HANDOFF_CODES_PER_GAME)
        .bind(code.keeps);
        conn.changes_one(insert).await
    })
}

/// [`WriteOp::TakeHandoff`]: takes a live code, once.
async fn take_handoff(tx: &mut Tx<'_>, code_hash: &str, now: i64) -> Result<bool, sqlx::Error> {
    on_tx!(tx, conn => {
        let take = sqlx::query("DELETE FROM handoff_codes WHERE code_hash = $1 AND expires_at > $2")
            .bind(code_hash)
            .bind(now);
        conn.changes_one(take).await
    })
}

/// [`WriteOp::MoveSeat`]: replaces a seat's secret (`hashes`: the one it has, the new one),
/// and the browsers that held it make way for the new one.
async fn move_seat(
    tx: &mut Tx<'_>,
    fence: Fence<'_>,
    seat: SeatColumn,
    (from_hash, to_hash): (&str, &str),
    browser: &str,
    at: i64,
) -> Result<bool, sqlx::Error> {
    let sql = match seat {
        SeatColumn::White => concat!(
            "UPDATE games SET white_secret_hash = $4, updated_at = $5, version = version + 1 \
             WHERE ",
            fence!(),
            " AND white_secret_hash = $6"
        ),
        SeatColumn::Black => concat!(
            "UPDATE games SET black_secret_hash = $4, updated_at = $5, version = version + 1 \
             WHERE ",
            fence!(),
            " AND black_secret_hash = $6"
        ),
    };
    on_tx!(tx, conn => {
        let change = fenced(&mut *conn, sql, fence).await?.bind(to_hash).bind(at).bind(from_hash);
        let moved = conn.changes_one(change).await?;
        if moved {
            sqlx::query("DELETE FROM seat_holders WHERE game_id = $1 AND seat = $2")
                .bind(fence.id)
                .bind(seat.name())
                .execute(&mut *conn)
                .await?;
            sqlx::query(
                "INSERT INTO seat_holders (browser, game_id, seat, since) VALUES ($1, $2, $3, $4)",
            )
            .bind(browser)
            .bind(fence.id)
            .bind(seat.name())
            .bind(at)
            .execute(&mut *conn)
            .await?;
        }
        Ok(moved)
    })
}
