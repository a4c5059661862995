//! The decision core, tested without a store, a socket or a clock: each ask decided at a given
//! time, and applied as the shell does once the store accepts the write.

use super::core::{Ask, Table};
use super::{Action, Ending, Holder, OfferAction, RoomError, secrets};
use crate::catalog::Catalog;
use crate::clock::{Clock, Expiry, TimeControl};
use crate::protocol::Status;
use crate::rules::{Color, Game, Stale, Termination};
use crate::store::WriteOp;
use std::collections::BTreeMap;

const T0: i64 = 1_000_000;

/// A Six Men's Morris table with both seats taken, untimed, nobody away.
fn table(control: TimeControl) -> Table {
    let variant = Catalog::builtin()
        .configure("six-mens-morris", &BTreeMap::new())
        .unwrap();
    Table {
        id: "game".into(),
        game: Game::new(variant),
        seats: [
            Some(Holder::Secret(secrets::hash("w"))),
            Some(Holder::Secret(secrets::hash("b"))),
        ],
        names: [None, None],
        status: Status::Playing,
        version: 2,
        epoch: 1,
        control,
        clock: control.is_timed().then(|| Clock::start(control, T0)),
        away_since: [None, None],
        absence_ms: Some(30_000),
        draw_offer: None,
        takeback_offer: None,
        rematch_offer: None,
        rematch: None,
        rematch_id: "next".into(),
        ended_at: None,
        open_until: None,
        computer_held_since: None,
    }
}

/// Decides and applies, as the shell does when the store accepts every write.
fn act(table: &mut Table, ask: Ask, now: i64) -> Result<(), RoomError> {
    if let Some(plan) = table.decide(ask, now)? {
        table.apply(plan.change).unwrap();
    }
    Ok(())
}

fn turn(seat: Color, text: &str) -> Ask {
    Ask::By {
        seat,
        action: Action::Turn(text.into()),
    }
}

#[test]
fn a_turn_is_a_plan_to_store_and_changes_nothing_until_applied() {
    let table = table(TimeControl::Untimed);
    let plan = table.decide(turn(Color::White, "a1"), T0).unwrap().unwrap();
    match &plan.op {
        WriteOp::AppendTurn {
            ply,
            notation,
            end,
            seen,
            ..
        } => assert_eq!(
            (*ply, notation.as_str(), end, *seen),
            (0, "a1", &None, table.version as i64),
            "a turn is checked against the version the room saw"
        ),
        other => panic!("not a turn: {other:?}"),
    }
    assert!(matches!(plan.lost, RoomError::Conflict));
    assert!(table.game.turns().is_empty(), "deciding changes nothing");
    let mut table = table;
    table.apply(plan.change).unwrap();
    assert_eq!(table.game.turn_strings(), ["a1"]);
}

#[test]
fn turns_are_refused_for_the_right_reasons() {
    let mut table = table(TimeControl::Untimed);
    assert!(matches!(
        table.decide(turn(Color::Black, "a1"), T0).unwrap_err(),
        RoomError::NotYourTurn
    ));
    assert!(matches!(
        table.decide(turn(Color::White, "zz"), T0),
        Err(RoomError::BadNotation(_))
    ));
    // Notation has no spaces: a turn wrapped in any kind of them is not guessed at.
    for spaced in [" a1 ", "a1\n", "\u{a0}a1\u{3000}", "a1 - a4"] {
        assert!(
            matches!(
                table.decide(turn(Color::White, spaced), T0),
                Err(RoomError::BadNotation(_))
            ),
            "{spaced:?} was taken"
        );
    }
    act(&mut table, turn(Color::White, "a1"), T0).unwrap();
    assert!(matches!(
        table.decide(turn(Color::Black, "a1"), T0),
        Err(RoomError::Illegal(_))
    ));
    table.status = Status::Waiting;
    assert!(matches!(
        table.decide(turn(Color::Black, "b2"), T0).unwrap_err(),
        RoomError::NotStarted
    ));
}

#[test]
fn a_stale_plan_is_refused_when_applied() {
    let mut table = table(TimeControl::Untimed);
    let first = table.decide(turn(Color::White, "a1"), T0).unwrap().unwrap();
    let again = table.decide(turn(Color::White, "a3"), T0).unwrap().unwrap();
    table.apply(first.change).unwrap();
    assert_eq!(table.apply(again.change), Err(Stale));
    assert_eq!(table.game.turn_strings(), ["a1"]);
}

#[test]
fn resigning_aborting_and_claiming() {
    let mut table = table(TimeControl::Untimed);
    let abort = Ask::By {
        seat: Color::Black,
        action: Action::End(Ending::Abort),
    };
    assert!(table.decide(abort, T0).is_ok(), "before both have moved");
    act(&mut table, turn(Color::White, "a1"), T0).unwrap();
    act(&mut table, turn(Color::Black, "b2"), T0).unwrap();
    let abort = Ask::By {
        seat: Color::Black,
        action: Action::End(Ending::Abort),
    };
    assert!(matches!(
        table.decide(abort, T0),
        Err(RoomError::NotAllowed(_))
    ));
    // White is to move; gone since T0, Black may claim 30 s later, not before.
    table.away_since[Color::White.index()] = Some(T0);
    let claim = |seat| Ask::By {
        seat,
        action: Action::End(Ending::ClaimWin),
    };
    assert!(matches!(
        table.decide(claim(Color::Black), T0 + 29_999),
        Err(RoomError::NotAllowed(_))
    ));
    assert!(matches!(
        table.decide(claim(Color::White), T0 + 30_000),
        Err(RoomError::NotAllowed(_))
    ));
    act(&mut table, claim(Color::Black), T0 + 30_000).unwrap();
    let outcome = table.game.outcome().unwrap();
    assert_eq!(
        (outcome.winner, outcome.termination, table.status),
        (
            Some(Color::Black),
            Termination::Abandonment,
            Status::Finished
        )
    );
    let resign = Ask::By {
        seat: Color::White,
        action: Action::End(Ending::Resign),
    };
    assert!(matches!(
        table.decide(resign, T0).unwrap_err(),
        RoomError::GameOver
    ));
}

#[test]
fn a_draw_offer_stands_until_the_opponents_next_turn_and_accepting_ends_the_game() {
    let mut table = table(TimeControl::Untimed);
    let draw = |seat, offer| Ask::By {
        seat,
        action: Action::Draw(offer),
    };
    // Offered on the offerer's own turn: it outlives the turn the offerer plays...
    act(&mut table, draw(Color::White, OfferAction::Offer), T0).unwrap();
    assert_eq!(table.pending_draw(), Some(Color::White));
    assert!(matches!(
        table.decide(draw(Color::White, OfferAction::Offer), T0),
        Err(RoomError::NotAllowed(_))
    ));
    act(&mut table, turn(Color::White, "a1"), T0).unwrap();
    assert_eq!(
        table.pending_draw(),
        Some(Color::White),
        "the opponent may answer"
    );
    // ...and lapses with the opponent's.
    act(&mut table, turn(Color::Black, "b2"), T0).unwrap();
    assert_eq!(
        table.pending_draw(),
        None,
        "lapsed with the opponent's turn"
    );
    // Offered on the opponent's turn: it lapses with that turn.
    act(&mut table, draw(Color::Black, OfferAction::Offer), T0).unwrap();
    act(&mut table, turn(Color::White, "a3"), T0).unwrap();
    assert_eq!(
        table.pending_draw(),
        None,
        "lapsed with the opponent's turn"
    );
    act(&mut table, draw(Color::Black, OfferAction::Offer), T0).unwrap();
    act(&mut table, turn(Color::Black, "b3"), T0).unwrap();
    act(&mut table, draw(Color::White, OfferAction::Accept), T0).unwrap();
    assert_eq!(
        table.game.outcome().map(|o| o.termination),
        Some(Termination::Agreement)
    );
}

#[test]
fn an_accepted_takeback_gives_the_asker_the_move_again() {
    let mut table = table(TimeControl::Untimed);
    let takeback = |seat, offer| Ask::By {
        seat,
        action: Action::Takeback(offer),
    };
    assert!(matches!(
        table.decide(takeback(Color::White, OfferAction::Offer), T0),
        Err(RoomError::NotAllowed(_))
    ));
    for (seat, t) in [
        (Color::White, "a1"),
        (Color::Black, "b2"),
        (Color::White, "d2"),
    ] {
        act(&mut table, turn(seat, t), T0).unwrap();
    }
    act(&mut table, takeback(Color::Black, OfferAction::Offer), T0).unwrap();
    let plan = table
        .decide(takeback(Color::White, OfferAction::Accept), T0)
        .unwrap()
        .unwrap();
    assert!(matches!(plan.op, WriteOp::TakeBack { from_ply: 1, .. }));
    table.apply(plan.change).unwrap();
    assert_eq!(table.game.turn_strings(), ["a1"]);
    assert_eq!(table.game.to_move(), Color::Black);
    assert_eq!(table.pending_takeback(), None);
}

#[test]
fn a_rematch_starts_when_both_ask_with_colours_swapped() {
    let mut table = table(TimeControl::Untimed);
    let rematch = |seat| Ask::By {
        seat,
        action: Action::Rematch,
    };
    assert!(matches!(
        table.decide(rematch(Color::White), T0),
        Err(RoomError::NotAllowed(_))
    ));
    act(
        &mut table,
        Ask::By {
            seat: Color::White,
            action: Action::End(Ending::Resign),
        },
        T0,
    )
    .unwrap();
    act(&mut table, rematch(Color::White), T0).unwrap();
    assert_eq!(table.rematch_offer, Some(Color::White));
    assert!(
        table.decide(rematch(Color::White), T0).unwrap().is_none(),
        "asking twice stores nothing"
    );
    let plan = table.decide(rematch(Color::Black), T0).unwrap().unwrap();
    let WriteOp::StartRematch { game, .. } = &plan.op else {
        panic!("not a rematch: {:?}", plan.op);
    };
    // This game's White (secret "w") sits as Black in the new one, with the same secret.
    assert_eq!(
        (
            game.white_secret_hash.clone(),
            game.black_secret_hash.clone()
        ),
        (Some(secrets::hash("b")), Some(secrets::hash("w")))
    );
    table.apply(plan.change).unwrap();
    let seat = table.rematch_seat(Color::White, "w".into()).unwrap();
    assert_eq!((seat.id.as_str(), seat.color), ("next", Color::Black));
    assert_eq!(seat.secret, "w");
}

#[test]
fn the_second_seat_starts_the_game_and_its_clocks() {
    let mut table = table(TimeControl::parse("3+2").unwrap());
    table.status = Status::Waiting;
    table.seats[Color::Black.index()] = None;
    table.clock = None;
    let ask = Ask::Join {
        holder: Holder::Secret("h".into()),
        name: None,
    };
    act(&mut table, ask, T0 + 5).unwrap();
    assert_eq!(table.status, Status::Playing);
    assert_eq!(table.clock.map(|c| c.since), Some(T0 + 5));
    assert!(matches!(
        table
            .decide(
                Ask::Join {
                    holder: Holder::Secret("x".into()),
                    name: None
                },
                T0
            )
            .unwrap_err(),
        RoomError::SeatsTaken
    ));
}

#[test]
fn a_flag_falls_at_the_deadline_not_when_it_is_noticed() {
    let mut table = table(TimeControl::parse("1+0").unwrap());
    act(&mut table, turn(Color::White, "a1"), T0).unwrap();
    act(&mut table, turn(Color::Black, "b2"), T0 + 1_000).unwrap();
    assert!(table.decide(Ask::Expire, T0 + 60_999).unwrap().is_none());
    let plan = table.decide(Ask::Expire, T0 + 90_000).unwrap().unwrap();
    assert!(matches!(plan.op, WriteOp::Finish { at, .. } if at == T0 + 61_000));
    table.apply(plan.change).unwrap();
    let outcome = table.game.outcome().unwrap();
    assert_eq!(
        (outcome.winner, outcome.termination),
        (Some(Color::Black), Termination::Time)
    );
    assert_eq!(table.clock.unwrap().left[Color::White.index()], 0);
}

#[test]
fn nobody_may_claim_a_win_from_the_computer_which_is_never_gone() {
    let mut table = table(TimeControl::Untimed);
    table.seats[Color::White.index()] = Some(Holder::Computer(crate::engine::Level::MAX));
    act(&mut table, turn(Color::White, "a1"), T0).unwrap();
    act(&mut table, turn(Color::Black, "a3"), T0).unwrap();
    // White, the computer, is to move and has never had a connection.
    table.away_since = [Some(T0), Some(T0)];
    assert_eq!(table.claim_from(), None);
    let claim = Ask::By {
        seat: Color::Black,
        action: Action::End(Ending::ClaimWin),
    };
    assert!(matches!(
        table.decide(claim, T0 + 1_000_000),
        Err(RoomError::NotAllowed(_))
    ));
    // The human, gone on their own turn, may be claimed against as ever.
    act(&mut table, turn(Color::White, "a5"), T0).unwrap();
    assert_eq!(table.claim_from(), Some((Color::White, T0 + 30_000)));
}

#[test]
fn the_computers_clock_is_held_while_it_waits_for_a_thread() {
    let mut table = table(TimeControl::parse("1+0").unwrap());
    table.seats[Color::Black.index()] = Some(Holder::Computer(crate::engine::Level::MAX));
    act(&mut table, turn(Color::White, "a1"), T0).unwrap();
    act(&mut table, turn(Color::Black, "b2"), T0).unwrap();
    act(&mut table, turn(Color::White, "a3"), T0).unwrap();
    // The computer, to move with 60 s, waits 100 s for a thread: no flag falls meanwhile, and
    // its clock stands still for everyone.
    table.hold_computer_clock(T0 + 1_000);
    assert_eq!(table.deadline(), None);
    assert!(table.decide(Ask::Expire, T0 + 101_000).unwrap().is_none());
    let view = table.clock_view(T0 + 101_000).unwrap();
    assert_eq!((view.black_ms, view.running), (59_000, None));
    // A command in the meantime credits the wait so far; the hold goes on.
    table.credit_held_clock(T0 + 50_000, true);
    assert_eq!(table.clock_view(T0 + 101_000).unwrap().black_ms, 59_000);
    // The thread is the computer's at 101 s: its clock runs from where it stood.
    table.credit_held_clock(T0 + 101_000, false);
    let view = table.clock_view(T0 + 102_000).unwrap();
    assert_eq!((view.black_ms, view.running), (58_000, Some(Color::Black)));
    assert_eq!(table.deadline().map(|(at, _)| at), Some(T0 + 160_000));
    act(&mut table, turn(Color::Black, "b3"), T0 + 103_000).unwrap();
    assert_eq!(table.clock.unwrap().left[Color::Black.index()], 57_000);
}

#[test]
fn a_first_move_is_counted_down_only_while_its_player_is_here() {
    let mut table = table(TimeControl::parse("1+0").unwrap());
    table.absence_ms = Some(60_000);
    // White, to move first, was away when the game began at T0: no countdown, the absence wait.
    table.away_since = [Some(T0 - 5_000), None];
    assert_eq!(table.deadline(), Some((T0 + 60_000, Expiry::Abort)));
    assert!(table.decide(Ask::Expire, T0 + 59_999).unwrap().is_none());
    // Back after 40 s: the whole countdown from then.
    table.arrive(Color::White, T0 + 40_000);
    assert_eq!(table.deadline(), Some((T0 + 70_000, Expiry::Abort)));
    act(&mut table, turn(Color::White, "a1"), T0 + 41_000).unwrap();
    // Black goes away on its first move: called off (aborted, not lost) after the absence wait.
    table.away_since = [None, Some(T0 + 42_000)];
    let plan = table.decide(Ask::Expire, T0 + 102_000).unwrap().unwrap();
    table.apply(plan.change).unwrap();
    let outcome = table.game.outcome().unwrap();
    assert_eq!(
        (outcome.winner, outcome.termination),
        (None, Termination::Aborted)
    );
}

#[test]
fn a_name_is_the_seats_and_goes_with_it_into_the_rematch() {
    let name = |n: &str| crate::protocol::PlayerName::parse(n).unwrap();
    let mut table = table(TimeControl::Untimed);
    table.status = Status::Waiting;
    table.seats[Color::Black.index()] = None;
    let join = Ask::Join {
        holder: Holder::Secret("h".into()),
        name: Some(name("Bea")),
    };
    let plan = table.decide(join, T0).unwrap().unwrap();
    assert!(matches!(&plan.op, WriteOp::ClaimSeat { name: Some(n), .. } if n == "Bea"));
    table.apply(plan.change).unwrap();
    assert_eq!(table.names, [None, Some(name("Bea"))]);
    // Named, then named anew: each a write of that seat's name alone.
    let ask = |n: &str| Ask::By {
        seat: Color::White,
        action: Action::Name(name(n)),
    };
    let plan = table.decide(ask("Ana"), T0).unwrap().unwrap();
    assert!(matches!(&plan.op, WriteOp::SetName { name, .. } if name == "Ana"));
    table.apply(plan.change).unwrap();
    assert!(
        table.decide(ask("Ana"), T0).unwrap().is_none(),
        "the same name again stores nothing"
    );
    act(&mut table, ask("Ana B"), T0).unwrap();
    assert_eq!(table.names, [Some(name("Ana B")), Some(name("Bea"))]);
    // The game over, each keeps their name in the rematch, colours swapped.
    act(
        &mut table,
        Ask::By {
            seat: Color::White,
            action: Action::End(Ending::Abort),
        },
        T0,
    )
    .unwrap();
    let rematch = |seat| Ask::By {
        seat,
        action: Action::Rematch,
    };
    act(&mut table, rematch(Color::White), T0).unwrap();
    let plan = table.decide(rematch(Color::Black), T0).unwrap().unwrap();
    let WriteOp::StartRematch { game, .. } = plan.op else {
        panic!("a rematch starts")
    };
    assert_eq!(
        (game.white_name.as_deref(), game.black_name.as_deref()),
        (Some("Bea"), Some("Ana B"))
    );
}

/// An open challenge's table: White waits, Black's seat is empty.
fn challenge() -> Table {
    let mut table = table(TimeControl::Untimed);
    table.seats[Color::Black.index()] = None;
    table.status = Status::Waiting;
    table.open_until = Some(T0 + 600_000);
    table
}

#[test]
fn an_untimed_game_whose_first_mover_never_comes_is_called_off_not_lost() {
    // Black takes the seat at T0; White, who made the game, left at T0 - 5 s and never moved.
    let mut table = challenge();
    table.away_since = [Some(T0 - 5_000), None];
    act(
        &mut table,
        Ask::Join {
            holder: Holder::Secret(secrets::hash("b")),
            name: None,
        },
        T0,
    )
    .unwrap();
    // The absence wait counts from the start of the game.
    assert_eq!(table.deadline(), Some((T0 + 30_000, Expiry::Abort)));
    assert!(table.decide(Ask::Expire, T0 + 29_999).unwrap().is_none());
    let plan = table.decide(Ask::Expire, T0 + 30_000).unwrap().unwrap();
    table.apply(plan.change).unwrap();
    let outcome = table.game.outcome().unwrap();
    assert_eq!(
        (outcome.winner, outcome.termination, table.status),
        (None, Termination::Aborted, Status::Finished)
    );
    // Once both have moved, an absence is claimed instead, as ever: no deadline.
    let mut table = table_untimed_after_two_plies();
    table.away_since = [Some(T0), None];
    assert_eq!(table.deadline(), None);
}

fn table_untimed_after_two_plies() -> Table {
    let mut table = table(TimeControl::Untimed);
    act(&mut table, turn(Color::White, "a1"), T0).unwrap();
    act(&mut table, turn(Color::Black, "a3"), T0).unwrap();
    table
}

#[test]
fn a_game_called_off_before_anyone_came_has_no_rematch() {
    let mut waiting = challenge();
    let cancel = Ask::By {
        seat: Color::White,
        action: Action::Cancel,
    };
    act(&mut waiting, cancel, T0).unwrap();
    let rematch = Ask::By {
        seat: Color::White,
        action: Action::Rematch,
    };
    assert!(matches!(
        waiting.decide(rematch, T0),
        Err(RoomError::NotAllowed(_))
    ));
    assert_eq!(waiting.rematch_offer, None);
}

#[test]
fn the_creator_may_cancel_a_game_nobody_has_joined_and_nobody_else_may() {
    let mut waiting = challenge();
    // The empty seat's colour acts for nobody.
    assert!(matches!(
        waiting.decide(
            Ask::By {
                seat: Color::Black,
                action: Action::Cancel,
            },
            T0
        ),
        Err(RoomError::NotSeated)
    ));
    act(
        &mut waiting,
        Ask::By {
            seat: Color::White,
            action: Action::Cancel,
        },
        T0,
    )
    .unwrap();
    assert_eq!(waiting.status, Status::Finished);
    assert_eq!(
        waiting.game.outcome().unwrap().termination,
        Termination::Aborted
    );
    assert!(matches!(
        waiting.decide(
            Ask::By {
                seat: Color::White,
                action: Action::Cancel,
            },
            T0
        ),
        Err(RoomError::GameOver)
    ));
    // A game under way is not cancelled.
    let playing = table(TimeControl::Untimed);
    assert!(matches!(
        playing.decide(
            Ask::By {
                seat: Color::White,
                action: Action::Cancel,
            },
            T0
        ),
        Err(RoomError::NotAllowed(_))
    ));
}

#[test]
fn an_open_challenge_nobody_takes_expires() {
    let mut table = challenge();
    assert_eq!(table.deadline(), Some((T0 + 600_000, Expiry::Abort)));
    assert!(table.decide(Ask::Expire, T0 + 599_999).unwrap().is_none());
    act(&mut table, Ask::Expire, T0 + 600_000).unwrap();
    assert_eq!(table.status, Status::Finished);
    // A game shared with a friend waits as long as it takes.
    let mut table = challenge();
    table.open_until = None;
    assert_eq!(table.deadline(), None);
}

#[test]
fn moving_a_seat_replaces_its_secret_once_stored_and_never_the_computers() {
    let mut t = table(TimeControl::Untimed);
    let move_white = |to: &str| Ask::MoveSeat {
        seat: Color::White,
        to_hash: secrets::hash(to),
        browser: "browser".into(),
    };
    let plan = t.decide(move_white("w2"), T0).unwrap().unwrap();
    match &plan.op {
        WriteOp::MoveSeat {
            from_hash, to_hash, ..
        } => assert_eq!(
            (from_hash, to_hash),
            (&secrets::hash("w"), &secrets::hash("w2"))
        ),
        op => panic!("{op:?}"),
    }
    assert_eq!(
        t.seat_of_secret("w"),
        Some(Color::White),
        "nothing changes before it is stored"
    );
    t.apply(plan.change).unwrap();
    assert_eq!(t.seat_of_secret("w"), None, "the old secret stops working");
    assert_eq!(t.seat_of_secret("w2"), Some(Color::White));
    assert_eq!(t.seat_of_secret("b"), Some(Color::Black));
    // No empty seat, nor the computer's, is anyone's to move.
    t.seats[0] = None;
    assert!(matches!(
        t.decide(move_white("x"), T0),
        Err(RoomError::NotSeated)
    ));
    t.seats[0] = Some(Holder::Computer(crate::engine::Level::MAX));
    assert!(matches!(
        t.decide(move_white("x"), T0),
        Err(RoomError::NotSeated)
    ));
}
