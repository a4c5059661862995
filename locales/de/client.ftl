# Deutsch: die Wörter des Browser-Clients (static/*.js), die jede Seite mitbringt. Der Server
# verwendet einige davon auch. Eine Nachricht hier ist Text mit Argumenten und höchstens einer
# Auswahl: nach einer Zahl (ihr Plural) oder nach einem Wort wie der Seite (white, black) oder
# wer es tat (you, opponent).
#
# Die Begriffe des Spiels: siehe das Glossar am Anfang von pages.ftl.

white = Weiß
black = Schwarz
spectator = Zuschauer
you = du
no-such-game = Keine solche Partie.
you-play = { $side ->
    [white] Du spielst Weiß.
   *[black] Du spielst Schwarz.
}
you-watch = Du schaust zu.
mill-remove = Mühle! Wähle einen Stein zum Schlagen.
your-turn = Du bist am Zug
your-turn-now = Du bist am Zug.
it-is-your-turn = Du bist am Zug.
not-your-turn = Du bist nicht am Zug.
choose-removal = Wähle einen Stein zum Schlagen.
illegal-turn = { $turn } ist hier kein erlaubter Zug.
turn-not-sent = Keine Verbindung: Der Zug wurde nicht gesendet.
to-move = { $side ->
    [white] Weiß am Zug.
   *[black] Schwarz am Zug.
}
waiting-for-opponent = Warte auf einen Gegner.
waiting-opponent = Warte auf einen Gegner: Schick ihm den Link.
waiting-creator = Warte auf einen Gegner: Schick ihm den Link oben (Kopieren, Teilen oder der QR-Code). Die Partie beginnt, sobald er Platz nimmt, und diese Seite spielt sie. Du kannst die Seite solange schließen: Die Partie bleibt unter „Meine Partien“ (der Link ganz oben).
looking-back = Rückblick: die Stellung nach Zug { $turn } von { $count }.
you-won = Du hast gewonnen:
you-lost = Du hast verloren:
game-over = Partie beendet
opponent-played = Dein Gegner hat { $turn } gespielt. { $page }
spectators = { $count ->
    [one] { $count } Zuschauer
   *[other] { $count } Zuschauer
}
in-hand = { $side ->
    [white] Weiß: { $count } in der Hand
   *[black] Schwarz: { $count } in der Hand
}

## Ein Zug in Worten, für Screenreader

turn-placed = { $side ->
    [white] Weiß setzt auf { $to }
   *[black] Schwarz setzt auf { $to }
}
turn-placed-removing = { $side ->
    [white] Weiß setzt auf { $to } und schlägt { $removed }
   *[black] Schwarz setzt auf { $to } und schlägt { $removed }
}
turn-moved = { $side ->
    [white] Weiß zieht von { $from } nach { $to }
   *[black] Schwarz zieht von { $from } nach { $to }
}
turn-moved-removing = { $side ->
    [white] Weiß zieht von { $from } nach { $to } und schlägt { $removed }
   *[black] Schwarz zieht von { $from } nach { $to } und schlägt { $removed }
}
point-man = { $side ->
    [white] weißer Stein
   *[black] schwarzer Stein
}
point-empty = frei
point-removable = kann geschlagen werden
point-selected = ausgewählt
point-playable = spielbar
replay-start = Anfang der Partie.
replay-start-short = Der Anfang
replay-turn = Zug { $turn }: { $played }
after-turn = Nach Zug { $turn } von { $count }, { $played }
back-in-game = Zurück zur Partie.

## Die Spieler neben dem Brett

seat-open = freier Platz
seat-opponent = Gegner
seat-player = Spieler
seat-computer = { $level ->
    [1] Computer, Stufe 1, Anfänger
    [2] Computer, Stufe 2, Gelegenheitsspieler
    [3] Computer, Stufe 3, Vereinsspieler
    [4] Computer, Stufe 4, stark
    [5] Computer, Stufe 5, Experte
   *[6] Computer, Stufe 6, Meister
}
presence-online = online
presence-offline = offline
presence-waiting = wartet
computer-thinking = denkt nach…
computer-thought = hat { $seconds } s nachgedacht
computer-idle = bereit
side-in-hand = in der Hand
side-lost = geschlagen
side-may-fly = darf springen
computer-preparing = Der Computer bereitet sein perfektes Spiel für dieses Brett vor: Bis dahin spielt er aus seiner Suche, noch etwa { $seconds } s.
computer-ready = Das perfekte Spiel des Computers für dieses Brett ist bereit.

## Angebote, Ankunft, die Uhren

takeback-accepted = { $count ->
    [one] Rücknahme angenommen: { $count } Zug zurückgenommen.
   *[other] Rücknahme angenommen: { $count } Züge zurückgenommen.
}
takeback-declined = { $who ->
    [you] Du hast die Rücknahme abgelehnt.
    [opponent] Dein Gegner hat die Rücknahme abgelehnt.
    [white] Weiß hat die Rücknahme abgelehnt.
   *[black] Schwarz hat die Rücknahme abgelehnt.
}
takeback-asked = { $who ->
    [you] Du hast um eine Rücknahme gebeten.
    [opponent] Dein Gegner bittet um eine Rücknahme.
    [white] Weiß bittet um eine Rücknahme.
   *[black] Schwarz bittet um eine Rücknahme.
}
draw-declined = { $who ->
    [you] Du hast das Remis abgelehnt.
    [opponent] Dein Gegner hat das Remis abgelehnt.
    [white] Weiß hat das Remis abgelehnt.
   *[black] Schwarz hat das Remis abgelehnt.
}
draw-lapsed = { $who ->
    [you] Das Remisangebot ist verfallen: Du hast weitergespielt.
    [opponent] Das Remisangebot ist verfallen: Dein Gegner hat weitergespielt.
    [white] Das Remisangebot ist verfallen: Weiß hat weitergespielt.
   *[black] Das Remisangebot ist verfallen: Schwarz hat weitergespielt.
}
draw-offered = { $who ->
    [you] Du hast Remis angeboten.
    [opponent] Dein Gegner bietet Remis an.
    [white] Weiß bietet Remis an.
   *[black] Schwarz bietet Remis an.
}
rematch-offered = { $who ->
    [you] Du hast eine Revanche angeboten.
    [opponent] Dein Gegner bietet eine Revanche an.
    [white] Weiß bietet eine Revanche an.
   *[black] Schwarz bietet eine Revanche an.
}
rematch-declined = { $who ->
    [you] Du hast die Revanche abgelehnt.
    [opponent] Dein Gegner hat die Revanche abgelehnt.
    [white] Weiß hat die Revanche abgelehnt.
   *[black] Schwarz hat die Revanche abgelehnt.
}
opponent-asks-takeback = Dein Gegner bittet um eine Rücknahme.
opponent-offers-draw = Dein Gegner bietet Remis an.
you-offered-draw = Du hast Remis angeboten.
rematch = Revanche
rematch-offered-button = Revanche angeboten
rematch-accept = Revanche annehmen
click-again = { $action }? Nochmal klicken
seat-taken = Der Platz ist schon vergeben: Du schaust zu.
seat-taken-by = { $side ->
    [white] Weiß hat Platz genommen
   *[black] Schwarz hat Platz genommen
}
seat-taken-begins = { $side ->
    [white] Weiß hat Platz genommen: Die Partie beginnt.
   *[black] Schwarz hat Platz genommen: Die Partie beginnt.
}
game-begins = Die Partie beginnt.
invite-waiting = { $side ->
    [white] Weiß wartet auf einen Gegner. Schwarz spielen oder zuschauen?
   *[black] Schwarz wartet auf einen Gegner. Weiß spielen oder zuschauen?
}
invite-offline = { $side ->
    [white] Weiß (offline) hat diese Partie angelegt. Schwarz spielen oder zuschauen?
   *[black] Schwarz (offline) hat diese Partie angelegt. Weiß spielen oder zuschauen?
}
first-move-away = { $side ->
    [white] Warte darauf, dass Weiß zurückkommt: Die Partie wird in { $seconds } s abgesagt.
   *[black] Warte darauf, dass Schwarz zurückkommt: Die Partie wird in { $seconds } s abgesagt.
}
first-move-left = { $who ->
    [you] Du hast { $seconds } s für den ersten Zug, sonst wird die Partie abgebrochen.
    [white] Weiß hat { $seconds } s für den ersten Zug, sonst wird die Partie abgebrochen.
   *[black] Schwarz hat { $seconds } s für den ersten Zug, sonst wird die Partie abgebrochen.
}
side-left = { $side ->
    [white] Weiß hat die Partie verlassen.
   *[black] Schwarz hat die Partie verlassen.
}
claim-soon = In { $seconds } s kannst du den Sieg beanspruchen.
claim-now = Du kannst den Sieg oder ein Remis beanspruchen oder warten.
called-off = Die Partie wurde vor Beginn abgesagt: Niemand hat verloren.
called-off-cancelled = Du hast die Partie abgesagt: Niemand hat verloren.
called-off-aborted = Du hast die Partie vor Beginn abgebrochen: Niemand hat verloren.
called-off-nobody-came = Niemand hat den anderen Platz eingenommen, deshalb wurde die Partie abgesagt: Niemand hat verloren.
called-off-not-back = Dein Gegner ist nicht zurückgekommen, deshalb wurde die Partie abgesagt: Niemand hat verloren.
challenge-waiting = { $side ->
    [white] Weiß wartet
   *[black] Schwarz wartet
}

## Den Platz auf ein anderes Gerät bringen

handoff-moves = Dieser Link verlegt deinen Platz: Sobald er dort geöffnet ist, schaut dieses Gerät nur noch zu.
handoff-keeps = Dieser Link öffnet deinen Platz auch dort: Beide Geräte spielen ihn.
handoff-making = Link wird erzeugt…
handoff-failed = Kein Link: { $why }
handoff-stale = Dieser Link zu einem Platz wurde schon benutzt oder ist abgelaufen: Erzeuge einen neuen auf dem Gerät, das den Platz hat.
handoff-broken = Dieser Link zu einem Platz hat nicht funktioniert ({ $why }): Versuch es noch einmal.
no-answer = keine Antwort

## Verbindung, Namen, Benachrichtigungen, Kopieren

connecting = Verbinde…
connected = Verbunden
reconnecting = Verbindung getrennt. Neuer Versuch in { $seconds } s…
name-saved = Gespeichert: Dieser Browser verwendet ihn auch in deinen nächsten Partien.
name-not-saved = Nicht gespeichert: { $why }.
notify-arrival = Benachrichtige mich, wenn mein Gegner kommt
notify-turn = Benachrichtige mich, wenn ich am Zug bin
notify-arrival-on = Du wirst benachrichtigt, wenn dein Gegner kommt.
notify-turn-on = Du wirst benachrichtigt, wenn du am Zug bist.
copied = Kopiert
server-answered = der Server antwortete { $status }

## Der Chat

chat-not-connected = Keine Verbindung: Die Zeile wurde nicht gesendet.
chat-not-sent = Nicht gesendet: { $why }.
chat-you = Du
chat-players = Chat mit deinem Gegner
chat-spectators-title = Chat der Zuschauer

## Meine Partien

mine-against-computer = { $game } gegen den Computer
mine-you-play = { $side ->
    [white] du spielst Weiß
   *[black] du spielst Schwarz
}
mine-waiting = wartet darauf, dass jemand den anderen Platz einnimmt
mine-won = gewonnen
mine-lost = verloren
mine-draw = Remis
mine-ended = beendet
mine-your-turn = du bist am Zug
mine-their-turn = dein Gegner ist am Zug
mine-left = noch { $time }
mine-error = Deine Partien konnten nicht geladen werden ({ $why }): Lade die Seite neu, um es noch einmal zu versuchen.
your-turn-in-games = { $count ->
    [one] Du bist in { $count } Partie am Zug
   *[other] Du bist in { $count } Partien am Zug
}

## Die Analyse

analysis-played = { $side ->
    [white] Weiß spielte { $turn }
   *[black] Schwarz spielte { $turn }
}
analysis-worth = { $side ->
    [white] wert { $value } für Weiß
   *[black] wert { $value } für Schwarz
}
analysis-mark = { $mark ->
    [blunder] ein grober Fehler
   *[mistake] ein Fehler
}
analysis-next = { $side ->
    [white] Weiß am Zug: { $value }; am besten { $best }.
   *[black] Schwarz am Zug: { $value }; am besten { $best }.
}
analysis-next-unreached = { $side ->
    [white] Weiß am Zug: in der Zeit nicht erreicht.
   *[black] Schwarz am Zug: in der Zeit nicht erreicht.
}
analysis-over = Die Partie ist vorbei.

## Aufgaben

puzzle-checking = Wird geprüft…
puzzle-not-judged = Nicht bewertet: { $why }
puzzle-right = Richtig. { $reply }. Du bist am Zug: noch { $count } zu finden.
puzzle-loses = { $side ->
    [white] damit verlierst du: Weiß gewinnt
   *[black] damit verlierst du: Schwarz gewinnt
}
puzzle-lets-draw = { $side ->
    [white] damit erreicht Weiß ein Remis
   *[black] damit erreicht Schwarz ein Remis
}
puzzle-wins = damit gewinnst du
puzzle-solved = { $goal ->
    [draw] Gelöst! { $turn } war der eine Zug, der das Remis hält.
   *[win] Gelöst! { $turn } war der eine Zug, der den Gewinn hält.
}
puzzle-right-turn-was = Der richtige Zug war { $turn } ({ $value }).
puzzle-line = Die Variante: { $line }
puzzle-show-right = Den richtigen Zug zeigen
puzzle-show-played = Den gespielten Zug zeigen
puzzle-streak = Serie: { $count } in Folge gelöst.

## Der Endspieltrainer

trainer-thinking = Denkt nach…
trainer-not-played = Nicht gespielt: { $why }
trainer-draw-now = Bei perfektem Spiel ist es ein Remis.
trainer-you-win-in = { $plies ->
    [one] Du gewinnst mit deinem nächsten Zug.
   *[other] Du gewinnst in { $plies } Halbzügen ({ $turns } deiner Züge) bei perfektem Spiel.
}
trainer-white-wins-in = { $plies ->
    [one] Weiß gewinnt mit dem nächsten Zug.
   *[other] Weiß gewinnt in { $plies } Halbzügen bei perfektem Spiel.
}
trainer-black-wins-in = { $plies ->
    [one] Schwarz gewinnt mit dem nächsten Zug.
   *[other] Schwarz gewinnt in { $plies } Halbzügen bei perfektem Spiel.
}
trainer-slip-draw = Mit { $turn } ist der Gewinn verspielt: Jetzt ist es ein Remis.
trainer-slip-loss = { $side ->
    [white] Mit { $turn } ist alles verspielt: Jetzt gewinnt Weiß.
   *[black] Mit { $turn } ist alles verspielt: Jetzt gewinnt Schwarz.
}
trainer-won = Gewonnen! Du hast den Gewinn gegen perfekte Verteidigung zu Ende gespielt.
trainer-won-back = Gewonnen! Die Verteidigung hat dich wieder hereingelassen.
trainer-over = { $result ->
    [draw] Die Partie ist aus: Remis.
    [white] Die Partie ist aus: Weiß hat gewonnen.
   *[black] Die Partie ist aus: Schwarz hat gewonnen.
}
