# فارسی: واژه‌های برنامهٔ مرورگر (static/*.js) که هر صفحه با خود می‌آورد. سرور هم برخی را به
# کار می‌برد. هر پیام متن است با آرگومان‌ها و حداکثر یک انتخاب: بر پایهٔ عدد (جمع آن) یا واژه‌ای
# مانند طرف (white، black) یا انجام‌دهنده (you، opponent).
#
# اصطلاح‌های بازی: واژه‌نامهٔ آغاز pages.ftl را ببینید.

white = سفید
black = سیاه
spectator = تماشاگر
you = شما
no-such-game = چنین بازی‌ای نیست.
you-play = { $side ->
    [white] شما با سفید بازی می‌کنید.
   *[black] شما با سیاه بازی می‌کنید.
}
you-watch = شما تماشا می‌کنید.
mill-remove = دوز! مهره‌ای را برای زدن برگزینید.
your-turn = نوبت شما
your-turn-now = نوبت شماست.
it-is-your-turn = نوبت شماست.
not-your-turn = نوبت شما نیست.
choose-removal = مهره‌ای را برای زدن برگزینید.
illegal-turn = { $turn } اینجا حرکت مجازی نیست.
turn-not-sent = اتصال برقرار نیست: حرکت فرستاده نشد.
to-move = { $side ->
    [white] نوبت سفید.
   *[black] نوبت سیاه.
}
waiting-for-opponent = در انتظار حریف.
waiting-opponent = در انتظار حریف: پیوند را برایش بفرستید.
waiting-creator = در انتظار حریف: پیوند بالا را برایش بفرستید (رونوشت، هم‌رسانی یا کد QR). بازی وقتی آغاز می‌شود که او بنشیند، و این صفحه آن را بازی می‌کند. در این میان می‌توانید این صفحه را ببندید: بازی در «بازی‌های من» می‌ماند (پیوند بالای صفحه).
looking-back = نگاه به گذشته: وضعیت پس از حرکت { $turn } از { $count }.
you-won = بردید:
you-lost = باختید:
game-over = بازی تمام شد
opponent-played = حریفتان { $turn } را بازی کرد. { $page }
spectators = { $count ->
    [one] { $count } تماشاگر
   *[other] { $count } تماشاگر
}
in-hand = { $side ->
    [white] سفید: { $count } در دست
   *[black] سیاه: { $count } در دست
}

## حرکت به زبان ساده، برای صفحه‌خوان

turn-placed = { $side ->
    [white] سفید روی { $to } گذاشت
   *[black] سیاه روی { $to } گذاشت
}
turn-placed-removing = { $side ->
    [white] سفید روی { $to } گذاشت و { $removed } را زد
   *[black] سیاه روی { $to } گذاشت و { $removed } را زد
}
turn-moved = { $side ->
    [white] سفید از { $from } به { $to } رفت
   *[black] سیاه از { $from } به { $to } رفت
}
turn-moved-removing = { $side ->
    [white] سفید از { $from } به { $to } رفت و { $removed } را زد
   *[black] سیاه از { $from } به { $to } رفت و { $removed } را زد
}
point-man = { $side ->
    [white] مهرهٔ سفید
   *[black] مهرهٔ سیاه
}
point-empty = خالی
point-removable = زدنی
point-selected = برگزیده
point-playable = بازی‌شدنی
replay-start = آغاز بازی.
replay-start-short = آغاز
replay-turn = حرکت { $turn }: { $played }
after-turn = پس از حرکت { $turn } از { $count }، { $played }
back-in-game = بازگشت به بازی.

## بازیکنان کنار صفحه

seat-open = جای خالی
seat-opponent = حریف
seat-player = بازیکن
seat-computer = { $level ->
    [1] رایانه، سطح ۱، تازه‌کار
    [2] رایانه، سطح ۲، تفننی
    [3] رایانه، سطح ۳، باشگاهی
    [4] رایانه، سطح ۴، قوی
    [5] رایانه، سطح ۵، کاردان
   *[6] رایانه، سطح ۶، استاد
}
presence-online = برخط
presence-offline = بیرون از خط
presence-waiting = در انتظار
computer-thinking = در حال فکر…
computer-thought = { $seconds } ثانیه فکر کرد
computer-idle = آماده
side-in-hand = در دست
side-lost = زده‌شده
side-may-fly = می‌تواند بپرد
computer-preparing = رایانه بازی بی‌نقص خود را برای این صفحه آماده می‌کند: تا آن زمان از جست‌وجوی خود بازی می‌کند، حدود { $seconds } ثانیه.
computer-ready = بازی بی‌نقص رایانه برای این صفحه آماده است.

## پیشنهادها، رسیدن حریف، ساعت‌ها

takeback-accepted = پس گرفتن پذیرفته شد: { $count } حرکت پس گرفته شد.
takeback-declined = { $who ->
    [you] پس گرفتن را رد کردید.
    [opponent] حریفتان پس گرفتن را رد کرد.
    [white] سفید پس گرفتن را رد کرد.
   *[black] سیاه پس گرفتن را رد کرد.
}
takeback-asked = { $who ->
    [you] درخواست پس گرفتن کردید.
    [opponent] حریفتان درخواست پس گرفتن کرد.
    [white] سفید درخواست پس گرفتن کرد.
   *[black] سیاه درخواست پس گرفتن کرد.
}
draw-declined = { $who ->
    [you] تساوی را رد کردید.
    [opponent] حریفتان تساوی را رد کرد.
    [white] سفید تساوی را رد کرد.
   *[black] سیاه تساوی را رد کرد.
}
draw-lapsed = { $who ->
    [you] پیشنهاد تساوی از اعتبار افتاد: شما بازی را ادامه دادید.
    [opponent] پیشنهاد تساوی از اعتبار افتاد: حریفتان بازی را ادامه داد.
    [white] پیشنهاد تساوی از اعتبار افتاد: سفید بازی را ادامه داد.
   *[black] پیشنهاد تساوی از اعتبار افتاد: سیاه بازی را ادامه داد.
}
draw-offered = { $who ->
    [you] تساوی پیشنهاد کردید.
    [opponent] حریفتان تساوی پیشنهاد کرد.
    [white] سفید تساوی پیشنهاد کرد.
   *[black] سیاه تساوی پیشنهاد کرد.
}
rematch-offered = { $who ->
    [you] بازی دوباره پیشنهاد کردید.
    [opponent] حریفتان بازی دوباره پیشنهاد کرد.
    [white] سفید بازی دوباره پیشنهاد کرد.
   *[black] سیاه بازی دوباره پیشنهاد کرد.
}
rematch-declined = { $who ->
    [you] بازی دوباره را رد کردید.
    [opponent] حریفتان بازی دوباره را رد کرد.
    [white] سفید بازی دوباره را رد کرد.
   *[black] سیاه بازی دوباره را رد کرد.
}
opponent-asks-takeback = حریفتان درخواست پس گرفتن دارد.
opponent-offers-draw = حریفتان تساوی پیشنهاد می‌کند.
you-offered-draw = تساوی پیشنهاد کردید.
rematch = بازی دوباره
rematch-offered-button = بازی دوباره پیشنهاد شد
rematch-accept = پذیرفتن بازی دوباره
click-again = { $action }؟ دوباره بزنید
seat-taken = این جا گرفته شده بود: شما تماشا می‌کنید.
seat-taken-by = { $side ->
    [white] سفید نشست
   *[black] سیاه نشست
}
seat-taken-begins = { $side ->
    [white] سفید نشست: بازی آغاز می‌شود.
   *[black] سیاه نشست: بازی آغاز می‌شود.
}
game-begins = بازی آغاز می‌شود.
invite-waiting = { $side ->
    [white] سفید منتظر حریف است. با سیاه بازی می‌کنید یا تماشا؟
   *[black] سیاه منتظر حریف است. با سفید بازی می‌کنید یا تماشا؟
}
invite-offline = { $side ->
    [white] سفید (بیرون از خط) این بازی را ساخت. با سیاه بازی می‌کنید یا تماشا؟
   *[black] سیاه (بیرون از خط) این بازی را ساخت. با سفید بازی می‌کنید یا تماشا؟
}
first-move-away = { $side ->
    [white] در انتظار بازگشت سفید: بازی تا { $seconds } ثانیهٔ دیگر لغو می‌شود.
   *[black] در انتظار بازگشت سیاه: بازی تا { $seconds } ثانیهٔ دیگر لغو می‌شود.
}
first-move-left = { $who ->
    [you] { $seconds } ثانیه برای نخستین حرکت دارید، وگرنه بازی رها می‌شود.
    [white] سفید { $seconds } ثانیه برای نخستین حرکت دارد، وگرنه بازی رها می‌شود.
   *[black] سیاه { $seconds } ثانیه برای نخستین حرکت دارد، وگرنه بازی رها می‌شود.
}
side-left = { $side ->
    [white] سفید بازی را ترک کرد.
   *[black] سیاه بازی را ترک کرد.
}
claim-soon = تا { $seconds } ثانیهٔ دیگر می‌توانید ادعای برد کنید.
claim-now = می‌توانید ادعای برد یا تساوی کنید، یا صبر کنید.
called-off = بازی پیش از آغاز لغو شد: کسی نباخت.
called-off-cancelled = بازی را لغو کردید: کسی نباخت.
called-off-aborted = بازی را پیش از آغاز رها کردید: کسی نباخت.
called-off-nobody-came = کسی جای دیگر را نگرفت، پس بازی لغو شد: کسی نباخت.
called-off-not-back = حریفتان برنگشت، پس بازی لغو شد: کسی نباخت.
challenge-waiting = { $side ->
    [white] سفید منتظر است
   *[black] سیاه منتظر است
}

## بردن جا به دستگاهی دیگر

handoff-moves = این پیوند جای شما را می‌برد: همین که آنجا باز شود، این دستگاه فقط تماشا می‌کند.
handoff-keeps = این پیوند جای شما را آنجا هم باز می‌کند: هر دو دستگاه بازی می‌کنند.
handoff-making = در حال ساخت پیوند…
handoff-failed = پیوندی نیست: { $why }
handoff-stale = این پیوند جا پیش‌تر به کار رفته یا منقضی شده است: روی دستگاهی که جا را دارد پیوند تازه‌ای بسازید.
handoff-broken = این پیوند جا کار نکرد ({ $why }): دوباره امتحان کنید.
no-answer = بی‌پاسخ

## اتصال، نام‌ها، آگاه‌سازی، رونوشت

connecting = در حال اتصال…
connected = متصل
reconnecting = اتصال قطع شد. اتصال دوباره تا { $seconds } ثانیهٔ دیگر…
name-saved = ذخیره شد: این مرورگر آن را در بازی‌های بعدی‌تان هم به کار می‌برد.
name-not-saved = ذخیره نشد: { $why }.
notify-arrival = وقتی حریفم رسید آگاهم کن
notify-turn = وقتی نوبتم شد آگاهم کن
notify-arrival-on = وقتی حریفتان برسد آگاه می‌شوید.
notify-turn-on = وقتی نوبتتان شود آگاه می‌شوید.
copied = رونوشت شد
server-answered = پاسخ سرور { $status } بود

## گفت‌وگو

chat-not-connected = اتصال برقرار نیست: پیام فرستاده نشد.
chat-not-sent = فرستاده نشد: { $why }.
chat-you = شما
chat-players = گفت‌وگو با حریف
chat-spectators-title = گفت‌وگوی تماشاگران

## بازی‌های من

mine-against-computer = { $game } با رایانه
mine-you-play = { $side ->
    [white] با سفید بازی می‌کنید
   *[black] با سیاه بازی می‌کنید
}
mine-waiting = در انتظار کسی که جای دیگر را بگیرد
mine-won = بردید
mine-lost = باختید
mine-draw = تساوی
mine-ended = پایان‌یافته
mine-your-turn = نوبت شما
mine-their-turn = نوبت حریف
mine-left = { $time } مانده
mine-error = بازی‌هایتان بارگیری نشد ({ $why }): برای تلاش دوباره صفحه را تازه کنید.
your-turn-in-games = نوبت شما در { $count } بازی

## تحلیل

analysis-played = { $side ->
    [white] سفید { $turn } را بازی کرد
   *[black] سیاه { $turn } را بازی کرد
}
analysis-worth = { $side ->
    [white] به ارزش { $value } برای سفید
   *[black] به ارزش { $value } برای سیاه
}
analysis-mark = { $mark ->
    [blunder] اشتباهی بزرگ
   *[mistake] اشتباهی
}
analysis-next = { $side ->
    [white] نوبت سفید: { $value }؛ بهترین { $best }.
   *[black] نوبت سیاه: { $value }؛ بهترین { $best }.
}
analysis-next-unreached = { $side ->
    [white] نوبت سفید: در زمان داده‌شده نرسید.
   *[black] نوبت سیاه: در زمان داده‌شده نرسید.
}
analysis-over = بازی تمام شده است.

## معماها

puzzle-checking = در حال بررسی…
puzzle-not-judged = داوری نشد: { $why }
puzzle-right = درست است. { $reply }. نوبت شما: { $count } حرکت دیگر برای یافتن.
puzzle-loses = { $side ->
    [white] این می‌بازد: سفید می‌برد
   *[black] این می‌بازد: سیاه می‌برد
}
puzzle-lets-draw = { $side ->
    [white] این به سفید تساوی می‌دهد
   *[black] این به سیاه تساوی می‌دهد
}
puzzle-wins = این می‌برد
puzzle-solved = { $goal ->
    [draw] حل شد! { $turn } تنها حرکتی بود که تساوی را نگه می‌دارد.
   *[win] حل شد! { $turn } تنها حرکتی بود که برد را نگه می‌دارد.
}
puzzle-right-turn-was = حرکت درست { $turn } بود ({ $value }).
puzzle-line = ادامهٔ بازی: { $line }
puzzle-show-right = نمایش حرکت درست
puzzle-show-played = نمایش حرکت بازی‌شده
puzzle-streak = پیاپی: { $count } معما بی‌وقفه حل شد.

## مربی پایان‌بازی

trainer-thinking = در حال فکر کردن…
trainer-not-played = بازی نشد: { $why }
trainer-draw-now = با بازی بی‌نقص، تساوی است.
trainer-you-win-in = { $plies ->
    [one] با حرکت بعدی‌تان می‌برید.
   *[other] در { $plies } نیم‌حرکت ({ $turns } حرکت خودتان) با بازی بی‌نقص می‌برید.
}
trainer-white-wins-in = { $plies ->
    [one] سفید با حرکت بعدی می‌برد.
   *[other] سفید در { $plies } نیم‌حرکت با بازی بی‌نقص می‌برد.
}
trainer-black-wins-in = { $plies ->
    [one] سیاه با حرکت بعدی می‌برد.
   *[other] سیاه در { $plies } نیم‌حرکت با بازی بی‌نقص می‌برد.
}
trainer-slip-draw = با { $turn } برد از دست رفت: اکنون تساوی است.
trainer-slip-loss = { $side ->
    [white] با { $turn } همه‌چیز از دست رفت: اکنون سفید می‌برد.
   *[black] با { $turn } همه‌چیز از دست رفت: اکنون سیاه می‌برد.
}
trainer-won = بردید! برد را در برابر دفاع بی‌نقص تا آخر بازی کردید.
trainer-won-back = بردید! دفاع راه بازگشت را برایتان باز گذاشت.
trainer-over = { $result ->
    [draw] بازی تمام شد: تساوی.
    [white] بازی تمام شد: سفید برد.
   *[black] بازی تمام شد: سیاه برد.
}
