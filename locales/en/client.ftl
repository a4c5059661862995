# English: the words of the browser client (static/*.js), which each page carries. The server
# uses some of them too. A message here is text and arguments, with at most one choice, by a
# number (its plural) or by a word such as a side (white, black) or who did it (you, opponent).
#
# The game's terms: see the glossary at the top of pages.ftl.

white = White
black = Black
spectator = Spectator
you = you
no-such-game = No such game.
you-play = { $side ->
    [white] You play white.
   *[black] You play black.
}
you-watch = You are watching.
mill-remove = A mill! Choose a man to remove.
your-turn = Your turn
your-turn-now = Your turn.
it-is-your-turn = It is your turn.
not-your-turn = It is not your turn.
choose-removal = Choose a man to remove.
illegal-turn = { $turn } is not a legal turn here.
turn-not-sent = Not connected: the turn was not sent.
to-move = { $side ->
    [white] White to move.
   *[black] Black to move.
}
waiting-for-opponent = Waiting for an opponent.
waiting-opponent = Waiting for an opponent: send them the link.
waiting-creator = Waiting for an opponent: send them the link above (Copy, Share or the QR code). The game starts when they take the seat, and this page plays it. You may close this page meanwhile: the game stays in My games (the link at the top).
looking-back = Looking back: the position after turn { $turn } of { $count }.
you-won = You won:
you-lost = You lost:
game-over = Game over
opponent-played = Your opponent played { $turn }. { $page }
spectators = { $count ->
    [one] { $count } spectator
   *[other] { $count } spectators
}
in-hand = { $side ->
    [white] White: { $count } in hand
   *[black] Black: { $count } in hand
}

## A turn in words, for screen readers

turn-placed = { $side ->
    [white] White placed on { $to }
   *[black] Black placed on { $to }
}
turn-placed-removing = { $side ->
    [white] White placed on { $to }, removing { $removed }
   *[black] Black placed on { $to }, removing { $removed }
}
turn-moved = { $side ->
    [white] White moved { $from } to { $to }
   *[black] Black moved { $from } to { $to }
}
turn-moved-removing = { $side ->
    [white] White moved { $from } to { $to }, removing { $removed }
   *[black] Black moved { $from } to { $to }, removing { $removed }
}
point-man = { $side ->
    [white] white man
   *[black] black man
}
point-empty = empty
point-removable = can be removed
point-selected = selected
point-playable = playable
replay-start = Start of the game.
replay-start-short = The start
replay-turn = Turn { $turn }: { $played }
after-turn = After turn { $turn } of { $count }, { $played }
back-in-game = Back to the game.

## The players beside the board

seat-open = open seat
seat-opponent = opponent
seat-player = player
seat-computer = { $level ->
    [1] computer, level 1, beginner
    [2] computer, level 2, casual
    [3] computer, level 3, club
    [4] computer, level 4, strong
    [5] computer, level 5, expert
   *[6] computer, level 6, master
}
presence-online = online
presence-offline = offline
presence-waiting = waiting
computer-thinking = thinking…
computer-thought = thought { $seconds } s
computer-idle = ready
side-in-hand = in hand
side-lost = lost
side-may-fly = may fly
computer-preparing = The computer is preparing its perfect play for this board: it plays from its search until then, about { $seconds } s.
computer-ready = The computer’s perfect play for this board is ready.

## Offers, arrivals, the clocks

takeback-accepted = { $count ->
    [one] Takeback accepted: { $count } turn taken back.
   *[other] Takeback accepted: { $count } turns taken back.
}
takeback-declined = { $who ->
    [you] You declined the takeback.
    [opponent] Your opponent declined the takeback.
    [white] White declined the takeback.
   *[black] Black declined the takeback.
}
takeback-asked = { $who ->
    [you] You asked for a takeback.
    [opponent] Your opponent asked for a takeback.
    [white] White asked for a takeback.
   *[black] Black asked for a takeback.
}
draw-declined = { $who ->
    [you] You declined the draw.
    [opponent] Your opponent declined the draw.
    [white] White declined the draw.
   *[black] Black declined the draw.
}
draw-lapsed = { $who ->
    [you] The draw offer lapsed: You played on.
    [opponent] The draw offer lapsed: Your opponent played on.
    [white] The draw offer lapsed: White played on.
   *[black] The draw offer lapsed: Black played on.
}
draw-offered = { $who ->
    [you] You offered a draw.
    [opponent] Your opponent offered a draw.
    [white] White offered a draw.
   *[black] Black offered a draw.
}
rematch-offered = { $who ->
    [you] You offered a rematch.
    [opponent] Your opponent offered a rematch.
    [white] White offered a rematch.
   *[black] Black offered a rematch.
}
rematch-declined = { $who ->
    [you] You declined the rematch.
    [opponent] Your opponent declined the rematch.
    [white] White declined the rematch.
   *[black] Black declined the rematch.
}
opponent-asks-takeback = Your opponent asks for a takeback.
opponent-offers-draw = Your opponent offers a draw.
you-offered-draw = You offered a draw.
rematch = Rematch
rematch-offered-button = Rematch offered
rematch-accept = Accept the rematch
click-again = { $action }? Click again
seat-taken = The seat was taken: you are watching.
seat-taken-by = { $side ->
    [white] White has taken the seat
   *[black] Black has taken the seat
}
seat-taken-begins = { $side ->
    [white] White has taken the seat: the game begins.
   *[black] Black has taken the seat: the game begins.
}
game-begins = The game begins.
invite-waiting = { $side ->
    [white] White is waiting for an opponent. Play black, or watch?
   *[black] Black is waiting for an opponent. Play white, or watch?
}
invite-offline = { $side ->
    [white] White (offline) made this game. Play black, or watch?
   *[black] Black (offline) made this game. Play white, or watch?
}
first-move-away = { $side ->
    [white] Waiting for White to come back: the game is called off in { $seconds } s.
   *[black] Waiting for Black to come back: the game is called off in { $seconds } s.
}
first-move-left = { $who ->
    [you] You have { $seconds } s to make a first move, or the game is aborted.
    [white] White has { $seconds } s to make a first move, or the game is aborted.
   *[black] Black has { $seconds } s to make a first move, or the game is aborted.
}
side-left = { $side ->
    [white] White has left the game.
   *[black] Black has left the game.
}
claim-soon = You may claim the win in { $seconds } s.
claim-now = You may claim the win or a draw, or wait.
called-off = The game was called off before it began: nobody lost.
called-off-cancelled = You cancelled the game: nobody lost.
called-off-aborted = You aborted the game before it began: nobody lost.
called-off-nobody-came = Nobody took the other seat, so the game was called off: nobody lost.
called-off-not-back = Your opponent did not come back, so the game was called off: nobody lost.
challenge-waiting = { $side ->
    [white] White is waiting
   *[black] Black is waiting
}

## Moving a seat to another device

handoff-moves = This link moves your seat: once it is opened there, this device only watches.
handoff-keeps = This link opens your seat there too: both devices play it.
handoff-making = Making a link…
handoff-failed = No link: { $why }
handoff-stale = That link to a seat was used already or has expired: open a new one on the device that holds the seat.
handoff-broken = That link to a seat did not work ({ $why }): try it again.
no-answer = no answer

## The connection, names, notifications, copying

connecting = Connecting…
connected = Connected
reconnecting = Disconnected. Reconnecting in { $seconds } s…
name-saved = Saved: this browser will use it in your next games too.
name-not-saved = Not saved: { $why }.
notify-arrival = Notify me when my opponent arrives
notify-turn = Notify me of my turn
notify-arrival-on = You will be notified when your opponent arrives.
notify-turn-on = You are notified of your turn.
copied = Copied
server-answered = the server answered { $status }

## The chat

chat-not-connected = Not connected: the line was not sent.
chat-not-sent = Not sent: { $why }.
chat-you = You
chat-players = Chat with your opponent
chat-spectators-title = Spectators' chat

## My games

mine-against-computer = { $game } against the computer
mine-you-play = { $side ->
    [white] you play white
   *[black] you play black
}
mine-waiting = waiting for someone to take the other seat
mine-won = you won
mine-lost = you lost
mine-draw = a draw
mine-ended = ended
mine-your-turn = your turn
mine-their-turn = their turn
mine-left = { $time } left
mine-error = Your games could not be loaded ({ $why }): reload the page to try again.
your-turn-in-games = { $count ->
    [one] Your turn in { $count } game
   *[other] Your turn in { $count } games
}

## The analysis

analysis-played = { $side ->
    [white] White played { $turn }
   *[black] Black played { $turn }
}
analysis-worth = { $side ->
    [white] worth { $value } for white
   *[black] worth { $value } for black
}
analysis-mark = { $mark ->
    [blunder] a blunder
   *[mistake] a mistake
}
analysis-next = { $side ->
    [white] White to move: { $value }; best { $best }.
   *[black] Black to move: { $value }; best { $best }.
}
analysis-next-unreached = { $side ->
    [white] White to move: not reached in the time.
   *[black] Black to move: not reached in the time.
}
analysis-over = The game is over.

## Puzzles

puzzle-checking = Checking…
puzzle-not-judged = Not judged: { $why }
puzzle-right = Right. { $reply }. Your turn: { $count } more to find.
puzzle-loses = { $side ->
    [white] this loses: White wins
   *[black] this loses: Black wins
}
puzzle-lets-draw = { $side ->
    [white] this lets White draw
   *[black] this lets Black draw
}
puzzle-wins = this wins
puzzle-solved = { $goal ->
    [draw] Solved! { $turn } was the one turn that holds the draw.
   *[win] Solved! { $turn } was the one turn that keeps the win.
}
puzzle-right-turn-was = The right turn was { $turn } ({ $value }).
puzzle-line = The line: { $line }
puzzle-show-right = Show the right turn
puzzle-show-played = Show the turn played
puzzle-streak = Streak: { $count } solved in a row.

## The endgame trainer

trainer-thinking = Thinking…
trainer-not-played = Not played: { $why }
trainer-draw-now = It is a draw with perfect play.
trainer-you-win-in = { $plies ->
    [one] You win with your next turn.
   *[other] You win in { $plies } plies ({ $turns } of your turns) with perfect play.
}
trainer-white-wins-in = { $plies ->
    [one] White wins with the next turn.
   *[other] White wins in { $plies } plies with perfect play.
}
trainer-black-wins-in = { $plies ->
    [one] Black wins with the next turn.
   *[other] Black wins in { $plies } plies with perfect play.
}
trainer-slip-draw = { $turn } let the win slip: it is a draw now.
trainer-slip-loss = { $side ->
    [white] { $turn } threw it away: White wins now.
   *[black] { $turn } threw it away: Black wins now.
}
trainer-won = Won! You played the win out against perfect defence.
trainer-won-back = Won! The defence let you back in.
trainer-over = { $result ->
    [draw] The game is over: a draw.
    [white] The game is over: White won.
   *[black] The game is over: Black won.
}
