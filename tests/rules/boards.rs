//! Every generated board against the points, lines and mills that REFERENCE.md §1 lists.

use crate::oracle::{RefBoard, all_configurations};
use merels::rules::{Board, BoardSpec, board::points};
use std::collections::BTreeSet;

fn generated(board: &Board) -> RefBoard {
    let name = |p| board.name(p).to_string();
    let all: Vec<_> = points(board.all()).collect();
    RefBoard {
        points: all.iter().map(|&p| name(p)).collect(),
        adjacent: all
            .iter()
            .flat_map(|&p| points(board.neighbours(p)).map(move |q| (name(p), name(q))))
            .collect(),
        mills: board
            .mills()
            .iter()
            .map(|&m| points(m).map(name).collect())
            .collect(),
    }
}

fn assert_same(spec: BoardSpec, expected: RefBoard, n_points: usize, n_mills: usize) {
    let board = Board::new(spec).unwrap();
    let got = generated(&board);
    assert_eq!(got.points, expected.points, "points of {spec:?}");
    assert_eq!(got.adjacent, expected.adjacent, "lines of {spec:?}");
    assert_eq!(got.mills, expected.mills, "mills of {spec:?}");
    assert_eq!(board.len(), n_points);
    assert_eq!(board.mills().len(), n_mills);
}

#[test]
fn nine_point_grid_with_and_without_diagonals() {
    let spec = |diagonals| BoardSpec {
        rings: 1,
        midpoints: true,
        diagonals,
        centre: true,
    };
    assert_same(spec(true), RefBoard::nine(true), 9, 8);
    assert_same(spec(false), RefBoard::nine(false), 9, 6);
}

#[test]
fn sixteen_and_seventeen_points() {
    let spec = |centre| BoardSpec {
        rings: 2,
        midpoints: true,
        diagonals: false,
        centre,
    };
    assert_same(spec(false), RefBoard::sixteen(false), 16, 8);
    assert_same(spec(true), RefBoard::sixteen(true), 17, 14);
}

#[test]
fn twenty_four_points_with_and_without_diagonals() {
    let spec = |diagonals| BoardSpec {
        rings: 3,
        midpoints: true,
        diagonals,
        centre: false,
    };
    assert_same(spec(false), RefBoard::twenty_four(false), 24, 16);
    assert_same(spec(true), RefBoard::twenty_four(true), 24, 20);
}

#[test]
fn every_variant_board_matches_the_reference() {
    for variant in all_configurations() {
        let expected = RefBoard::for_rules(variant.rules());
        let got = generated(variant.board());
        assert_eq!(got.points, expected.points, "{}", variant.slug());
        assert_eq!(got.adjacent, expected.adjacent, "{}", variant.slug());
        assert_eq!(got.mills, expected.mills, "{}", variant.slug());
    }
}

#[test]
fn names_and_drawing_positions_agree() {
    for rings in 1..=3 {
        let board = Board::new(BoardSpec {
            rings,
            midpoints: true,
            diagonals: true,
            centre: rings == 1,
        })
        .unwrap();
        assert_eq!(board.size(), 2 * rings + 1);
        let mut seen = BTreeSet::new();
        for p in points(board.all()) {
            let (x, y) = board.coord(p);
            assert_eq!(board.name(p), format!("{}{}", char::from(b'a' + x), y + 1));
            assert_eq!(board.point(board.name(p)), Some(p));
            assert!(seen.insert((x, y)));
        }
        // Lines are straight runs on the grid, drawable as one segment each.
        for line in board.lines() {
            let (x0, y0) = board.coord(line[0]);
            let (x1, y1) = board.coord(line[1]);
            let (dx, dy) = (i16::from(x1) - i16::from(x0), i16::from(y1) - i16::from(y0));
            for pair in line.windows(2) {
                let (a, b) = (board.coord(pair[0]), board.coord(pair[1]));
                let step = (
                    i16::from(b.0) - i16::from(a.0),
                    i16::from(b.1) - i16::from(a.1),
                );
                assert_eq!(step.0.signum(), dx.signum());
                assert_eq!(step.1.signum(), dy.signum());
            }
        }
    }
}

#[test]
fn impossible_boards_are_refused() {
    for rings in [0, 4] {
        assert!(
            Board::new(BoardSpec {
                rings,
                midpoints: true,
                diagonals: false,
                centre: false
            })
            .is_err()
        );
    }
    assert!(
        Board::new(BoardSpec {
            rings: 2,
            midpoints: false,
            diagonals: false,
            centre: true
        })
        .is_err()
    );
}
