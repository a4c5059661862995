# Deutsch: die Wörter der Seiten des Servers.
#
# Glossar, die Begriffe des Spiels, wie diese Datei sie verwendet:
#   Stein (Steine)         eine Spielfigur
#   Mühle                  drei Steine in einer Reihe auf einer Linie
#   eine Mühle schließen   mit einem Zug eine Mühle bilden
#   schlagen               nach einer geschlossenen Mühle einen gegnerischen Stein vom Brett nehmen
#   setzen                 einen Stein aus der Hand auf das Brett bringen
#   ziehen                 einen Stein entlang einer Linie auf einen Nachbarpunkt bewegen
#   springen               einen Stein auf einen beliebigen freien Punkt bewegen (mit drei Steinen)
#   eingesperrt            kann nicht mehr ziehen: jeder Stein ist blockiert
#   Weiß, Schwarz          die Seiten; „du“ spricht den Spieler an

language-name = Deutsch
languages = Sprachen
site-description = Mühle mit Freunden spielen: Link schicken, ohne Anmeldung.
footer = Keine Anmeldung nötig. Teile einen Link und spiel los.
title-page = { $page } · merels
my-games = Meine Partien

board-of = Brett: { $variant }
rules = Regeln
rules-of = Regeln von { $variant }
position = Stellung:
play = Spielen
copy = Kopieren
save = Speichern
cancel = Abbrechen
start-new-game = Neue Partie beginnen
back-to-game = Zurück zur Partie
back-to-games = Zurück zu den Partien
none-right-now = Gerade keine.
none-yet = Noch keine.
puzzles = Aufgaben
all-games = Alle Spiele

## Die Startseite

home-title = merels · Mühle mit Freunden spielen
home-heading = Mühle mit Freunden spielen
home-lead = Beginne eine Partie und schick den Link: Wer ihn zuerst öffnet, setzt sich dir gegenüber, alle danach schauen live zu. Ohne Anmeldung.
home-quick = Schnellstart
home-puzzles-hint = : Finde den einen Zug, der den Gewinn hält – bewiesen durch die gelösten Tabellen.
home-daily = Aufgabe des Tages
home-daily-hint = : dieselbe für alle bis Mitternacht UTC.
home-trainer-hint = : Spiele ein gewonnenes Endspiel gegen perfekte Verteidigung zu Ende.
home-setup = Oder alles selbst wählen
home-step-game = 1. Spiel
open-challenges = Offene Herausforderungen
challenges-none = Gerade keine: Beginne eine mit „{ $button }“.
challenge-is-waiting = wartet
home-live = Gerade gespielt
home-live-none = Gerade keine Partie: Beginne oben eine.
turns-so-far = { $count ->
    [one] bisher { $count } Zug
   *[other] bisher { $count } Züge
}
quick-level = Stufe { $level }

## Eine Partie einrichten

start-friend = Gegen Freunde spielen
start-open = Offene Herausforderung
start-computer = Gegen den Computer spielen
setup-step-time = 2. Bedenkzeit
setup-time = Bedenkzeit
setup-custom = Eigene
setup-minutes = Minuten
setup-seconds = + Sekunden
setup-step-colour = 3. Spielen als
setup-colour = Spielen als
setup-random = Zufällig
setup-step-opponent = 4. Gegner
setup-opponent = Gegner
setup-level = Stufe
setup-open-hint = Eine offene Herausforderung steht auf der Startseite, und jeder kann sie annehmen.
clock-untimed = Ohne Uhr
level-named = { $number } ({ $name })
level-beginner = Anfänger
level-casual = Gelegenheitsspieler
level-club = Vereinsspieler
level-strong = stark
level-expert = Experte
level-master = Meister
error-not-created = Die Partie wurde nicht angelegt

## Die Partie

no-such-game-why = Vielleicht ist der Link falsch geschrieben.
time-control = Bedenkzeit: { $clock }
preview-alt = { $variant }: das Brett nach { $count ->
    [one] { $count } Zug
   *[other] { $count } Zügen
}
share-qr-label = QR-Code des Links zu dieser Partie
embed-title = { $variant }: eine Partie auf merels
seat-moved = Dein Platz ist auf ein anderes Gerät umgezogen: Diese Seite schaut nur noch zu.
take-seat = Platz nehmen
just-watch = Nur zuschauen
your-name = Dein Name
name-optional = freiwillig
name-hint = Ein Name ist nur eine Bezeichnung, kein Konto: Jeder darf jeden Namen verwenden. Buchstaben, Ziffern, Leerzeichen und . _ -, höchstens 20.
needs-javascript = Zum Spielen braucht es JavaScript: Ohne zeigt diese Seite die Partie so, wie sie beim Laden der Seite stand.
called-off-challenges = Offene Herausforderungen: Diese Plätze kann jeder einnehmen.
action-cancel = Partie absagen
action-abort = Abbrechen
action-resign = Aufgeben
action-draw-offer = Remis anbieten
action-draw-accept = Remis annehmen
action-decline = Ablehnen
action-takeback-offer = Zug zurücknehmen lassen
action-takeback-accept = Rücknahme erlauben
action-refuse = Verweigern
action-rematch = Revanche
action-rematch-decline = Revanche ablehnen
action-claim-win = Sieg beanspruchen
action-claim-draw = Remis beanspruchen
type-turn = Zug eintippen
watch-rematch = Revanche zuschauen
share-link = Diesen Link teilen
share = Teilen…
qr-code = QR-Code
handoff = Auf einem anderen Gerät weiterspielen
handoff-how = Erzeuge einen Link, den du auf dem anderen Gerät öffnest. Er gilt einmal, innerhalb { $minutes ->
    [one] einer Minute
   *[other] von { $minutes } Minuten
}. Behalte ihn für dich.
handoff-move = Meinen Platz dorthin verlegen
handoff-keep = Hier behalten und dort auch öffnen
handoff-link = Der Link zu deinem Platz
turns = Züge
flip-board = Brett drehen
mute-sounds = Töne aus
download-record = Partienotation herunterladen
analysis-link = Die Analyse des Computers
replay-first = Anfangsstellung
replay-previous = Vorheriger Zug
replay-next = Nächster Zug
replay-last = Letzte Stellung
download-gif = GIF herunterladen
share-image = Bild teilen
embed = Einbetten
embed-how = Zeig diese Partie live auf einer Seite deiner eigenen Website:
embed-markup = Der Code, der diese Partie einbettet
embed-on-merels = { $variant } auf merels
embed-back = Die Partie auf merels
embed-refused = Diese Einbettung kann nicht angezeigt werden

## Der Chat

chat = Chat
chat-muted = Der Chat ist stummgeschaltet.
chat-say = Schreib etwas
chat-say-placeholder = Schreib etwas…
chat-send = Senden
chat-mute = Chat stummschalten
chat-spectators = Chat der Zuschauer zeigen

## Meine Partien

mine-lead = Die Partien, die dieser Browser spielt, nur in diesem Browser gespeichert: ohne Anmeldung. Ein Platz, der auf ein anderes Gerät umgezogen ist, verschwindet aus dieser Liste.
mine-in-progress = Laufend
mine-none = Gerade keine:
mine-finished = Kürzlich beendet

## Die Analyse

analysis = Analyse
analysis-exact = Genaue Werte aus der gelösten Tabelle: Halbzüge bis zum Ende bei perfektem Spiel.
analysis-search-no-table = Eine kurze Suche in jeder Stellung (die gelöste Tabelle dieses Bretts ist auf diesem Server noch nicht bereit): Bewertung in Steinen für die Seite am Zug.
analysis-search = Eine kurze Suche in jeder Stellung: Bewertung in Steinen für die Seite am Zug.
analysis-not-reached = nicht erreicht
analysis-ply = Halbzug
analysis-side = Seite
analysis-column-played = Gespielt
analysis-position = Stellung
analysis-best = Bester
analysis-column-worth = Wert
analysis-worth-hint = Was der gespielte Zug wert war

## Die Seite einer Spielart

no-such-variant = Keine solche Spielart
no-such-variant-why = Ein Spiel dieses Namens gibt es hier nicht.
variant-family = Spielart von { $family }
play-variant = { $variant } spielen
rule-changes = Regeländerungen
rule-changes-caption = Wie sich { $variant } von der Standard-Mühle unterscheidet
rule-changes-standard = Standard-Mühle

## Aufgaben

puzzles-lead = Stellungen aus perfektem Spiel, in denen genau ein Zug den Gewinn hält oder das Remis sichert: Jeder andere Zug verschenkt etwas, wie die gelöste Tabelle des Bretts beweist. Finde ihn; manche reichen ein paar Züge tief, der Computer antwortet dazwischen perfekt.
no-such-puzzle = Keine solche Aufgabe
puzzle-task = { $goal ->
    [draw] { $side ->
        [white] Weiß zieht und hält das Remis
       *[black] Schwarz zieht und hält das Remis
    }
   *[win] { $side ->
        [white] Weiß zieht und gewinnt
       *[black] Schwarz zieht und gewinnt
    }
}
puzzle-title = { $task } · Aufgabe { $id } · merels
puzzle-number = Aufgabe { $id }
puzzle-rated = Wertung { $rating }
puzzle-turns-to-find = { $count } Züge zu finden
puzzle-next = Nächste Aufgabe
puzzle-your-rating = Deine Aufgabenwertung:
puzzle-other-boards = Andere Bretter
puzzle-needs-javascript = Zum Lösen braucht es JavaScript; die API (docs/protocol.md) nimmt Züge ebenfalls an.

## Der Endspieltrainer

trainer = Endspieltrainer
trainer-lead = Gewonnene Endspiele aus den gelösten Tabellen: Spiele den Gewinn gegen perfekte Verteidigung zu Ende. Nach jedem Zug siehst du, wie viele Halbzüge bei perfektem Spiel bis zum Ende bleiben, und wenn ein Gewinn zum Remis oder zur Niederlage wird, steht es klar da.
trainer-board-endgames = { $variant }: Endspiele
trainer-starts-lead = Jedes ist für die Seite am Zug gewonnen, in der angegebenen Zahl von Halbzügen, wenn beide Seiten perfekt spielen. Der Computer verteidigt sich so lange er kann.
trainer-endgame = Endspiel { $n }
trainer-wins-in = { $side ->
    [white] : Weiß gewinnt in { $plies } Halbzügen
   *[black] : Schwarz gewinnt in { $plies } Halbzügen
}
trainer-few-men = (wenige Steine)
trainer-endgame-title = { $variant }, Endspiel { $n }
trainer-of = Endspiel { $n } von { $count }
trainer-win-in = Ein Gewinn in { $plies } Halbzügen bei perfektem Spiel.
trainer-again = Von vorn
trainer-next = Nächstes Endspiel
trainer-all = Alle Endspiele dieses Bretts
trainer-needs-javascript = Zum Spielen braucht es JavaScript; die API (docs/protocol.md) nimmt Züge ebenfalls an.
trainer-back = Zurück zu den Brettern
trainer-no-such-endgame = Dieses Endspiel gibt es nicht

## Die Vorschau eines Links zu einer Partie

preview-untimed = ohne Uhr
preview-over = Die Partie ist vorbei
preview-invite = { $side ->
    [white] Weiß lädt dich zu { $variant } ein, { $clock }.
   *[black] Schwarz lädt dich zu { $variant } ein, { $clock }.
}
preview-playing = Live: { $variant }, { $clock }, Zug { $turn }.
preview-finished = { $how }, nach { $count ->
    [one] { $count } Zug
   *[other] { $count } Zügen
}. { $variant }, { $clock }.
