# English: the words of the server's pages.
#
# Glossary, the game's terms as this file uses them:
#   man (men)         a playing piece
#   mill              three men in a row on a line
#   close a mill      make a mill with a turn
#   remove            take an opponent's man off the board after closing a mill
#   place             put a man from the hand on the board
#   slide / move      move a man along a line to a neighbouring point
#   fly               move a man to any empty point (with three men left)
#   blocked           unable to move: every man is shut in

language-name = English
languages = Languages
site-description = Play mill games with a friend: send a link, no sign-up.
footer = No sign-up required. Share a link and start playing.
# A page's title in the browser's tab: the page's own, then the site.
title-page = { $page } · merels
my-games = My games

board-of = { $variant } board
rules = Rules
rules-of = Rules of { $variant }
position = Position:
play = Play
copy = Copy
save = Save
cancel = Cancel
start-new-game = Start a new game
back-to-game = Back to the game
back-to-games = Back to the games
none-right-now = None right now.
none-yet = None yet.
puzzles = Puzzles
all-games = All games

## The home page

home-title = merels · play mill games with a friend
home-heading = Play mill games with a friend
home-lead = Start a game, send the link: whoever opens it first takes the seat across from you, and everyone after watches live. No sign-up.
home-quick = Quick start
home-puzzles-hint = : find the one turn that keeps the win, proven by the solved tables.
home-daily = Today's puzzle
home-daily-hint = : the same one for everyone until midnight UTC.
home-trainer-hint = : play a won endgame out against perfect defence.
home-setup = Or choose everything
home-step-game = 1. Game
open-challenges = Open challenges
challenges-none = None right now: start one with "{ $button }".
challenge-is-waiting = is waiting
home-live = Being played now
home-live-none = No game right now: start one above.
turns-so-far = { $count ->
    [one] { $count } turn so far
   *[other] { $count } turns so far
}
quick-level = level { $level }

## Setting up a game

start-friend = Play a friend
start-open = Open challenge
start-computer = Play the computer
setup-step-time = 2. Time
setup-time = Time
setup-custom = Custom
setup-minutes = Minutes
setup-seconds = + seconds
setup-step-colour = 3. Play as
setup-colour = Play as
setup-random = Random
setup-step-opponent = 4. Opponent
setup-opponent = Opponent
setup-level = Level
setup-open-hint = An open challenge is listed on the home page for anyone to take.
clock-untimed = Untimed
level-named = { $number } ({ $name })
level-beginner = beginner
level-casual = casual
level-club = club
level-strong = strong
level-expert = expert
level-master = master
error-not-created = The game was not created

## The game page

no-such-game-why = The link may be mistyped.
time-control = Time: { $clock }
preview-alt = { $variant }: the board after { $count ->
    [one] { $count } turn
   *[other] { $count } turns
}
share-qr-label = QR code of this game's link
embed-title = { $variant }: a game on merels
seat-moved = Your seat moved to another device: this page only watches now.
take-seat = Take the seat
just-watch = Just watch
your-name = Your name
name-optional = optional
name-hint = A name is a label, not an account: anyone may use any name. Letters, digits, spaces and . _ -, up to 20.
needs-javascript = Playing needs JavaScript: without it this page shows the game as it stood when the page was made.
called-off-challenges = Open challenges: anyone may take these seats.
action-cancel = Cancel the game
action-abort = Abort
action-resign = Resign
action-draw-offer = Offer a draw
action-draw-accept = Accept the draw
action-decline = Decline
action-takeback-offer = Ask for a takeback
action-takeback-accept = Allow the takeback
action-refuse = Refuse
action-rematch = Rematch
action-rematch-decline = Decline the rematch
action-claim-win = Claim the win
action-claim-draw = Claim a draw
type-turn = Type your turn
watch-rematch = Watch the rematch
share-link = Share this link
share = Share…
qr-code = QR code
handoff = Continue on another device
handoff-how = Make a link to open on the other device. It works once, within { $minutes ->
    [one] { $minutes } minute
   *[other] { $minutes } minutes
}. Keep it to yourself.
handoff-move = Move my seat there
handoff-keep = Keep it here, also open it there
handoff-link = The link to your seat
turns = Turns
flip-board = Flip the board
mute-sounds = Mute sounds
download-record = Download the game record
analysis-link = The computer's analysis
replay-first = First position
replay-previous = Previous turn
replay-next = Next turn
replay-last = Last position
download-gif = Download GIF
share-image = Share image
embed = Embed
embed-how = Show this game, live, on your own site's page:
embed-markup = The markup that embeds this game
embed-on-merels = { $variant } on merels
embed-back = The game on merels
embed-refused = This embed cannot be shown

## The chat

chat = Chat
chat-muted = The chat is muted.
chat-say = Say something
chat-say-placeholder = Say something…
chat-send = Send
chat-mute = Mute the chat
chat-spectators = Show the spectators' chat

## My games

mine-lead = The games this browser plays, kept by this browser alone: no sign-up. A seat moved to another device leaves this list.
mine-in-progress = In progress
mine-none = None right now:
mine-finished = Recently finished

## The analysis

analysis = Analysis
analysis-exact = Exact values from the solved table: plies to the end with perfect play.
analysis-search-no-table = A short search of each position (this board's solved table is not ready on this server): scores in men for the side to move.
analysis-search = A short search of each position: scores in men for the side to move.
analysis-not-reached = not reached
analysis-ply = Ply
analysis-side = Side
analysis-column-played = Played
analysis-position = Position
analysis-best = Best
analysis-column-worth = Worth
analysis-worth-hint = What the turn played was worth

## A variant's page

no-such-variant = No such variant
no-such-variant-why = There is no game of that name here.
variant-family = { $family } variant
play-variant = Play { $variant }
rule-changes = Rule changes
rule-changes-caption = How { $variant } differs from standard Nine Men's Morris
rule-changes-standard = Standard Nine Men's Morris

## Puzzles

puzzles-lead = Positions from perfect play where exactly one turn keeps the win, or holds the draw: every other turn gives something away, as the board's solved table proves. Find it; some run a few turns deep, the computer answering perfectly between.
no-such-puzzle = No such puzzle
puzzle-task = { $goal ->
    [draw] { $side ->
        [white] White to play and hold the draw
       *[black] Black to play and hold the draw
    }
   *[win] { $side ->
        [white] White to play and win
       *[black] Black to play and win
    }
}
puzzle-title = { $task } · Puzzle { $id } · merels
puzzle-number = puzzle { $id }
puzzle-rated = rated { $rating }
puzzle-turns-to-find = { $count } turns to find
puzzle-next = Next puzzle
puzzle-your-rating = Your puzzle rating:
puzzle-other-boards = Other boards
puzzle-needs-javascript = Solving needs JavaScript; the API (docs/protocol.md) takes turns too.

## The endgame trainer

trainer = Endgame trainer
trainer-lead = Won endgames from the solved tables: play the win out against perfect defence. After each turn you see how many plies are left to the end with perfect play, and the moment a win slips to a draw or a loss is said plainly.
trainer-board-endgames = { $variant }: endgames
trainer-starts-lead = Each is won for the side to move, in the number of plies given if both sides play perfectly. The computer defends as long as it can.
trainer-endgame = Endgame { $n }
trainer-wins-in = { $side ->
    [white] : White wins in { $plies } plies
   *[black] : Black wins in { $plies } plies
}
trainer-few-men = (few men)
trainer-endgame-title = { $variant } endgame { $n }
trainer-of = endgame { $n } of { $count }
trainer-win-in = A win in { $plies } plies with perfect play.
trainer-again = Start again
trainer-next = Next endgame
trainer-all = All endgames of this board
trainer-needs-javascript = Playing needs JavaScript; the API (docs/protocol.md) takes turns too.
trainer-back = Back to the boards
trainer-no-such-endgame = No such endgame

## A game's link preview

preview-untimed = untimed
preview-over = The game is over
preview-invite = { $side ->
    [white] White invites you to play { $variant }, { $clock }.
   *[black] Black invites you to play { $variant }, { $clock }.
}
preview-playing = Live: { $variant }, { $clock }, turn { $turn }.
preview-finished = { $how }, after { $count ->
    [one] { $count } turn
   *[other] { $count } turns
}. { $variant }, { $clock }.
