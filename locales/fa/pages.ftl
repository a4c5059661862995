# فارسی: واژه‌های صفحه‌های سرور.
#
# واژه‌نامه، اصطلاح‌های بازی همان‌گونه که این فایل به کار می‌برد:
#   مهره                 یک مهرهٔ بازی
#   دوز                  سه مهره در یک ردیف روی یک خط
#   دوز ساختن            با یک حرکت سه مهره را در یک ردیف کردن
#   زدن                  برداشتن یک مهرهٔ حریف از صفحه پس از ساختن دوز
#   گذاشتن               آوردن مهره از دست روی صفحه
#   حرکت دادن            بردن مهره در امتداد خط به خانهٔ کناری
#   پریدن                بردن مهره به هر خانهٔ خالی (با سه مهرهٔ باقی‌مانده)
#   در محاصره            بی‌حرکت: همهٔ مهره‌ها راهشان بسته است
#   سفید، سیاه           دو طرف بازی

language-name = فارسی
languages = زبان‌ها
site-description = با دوستانتان دوز بازی کنید: پیوند را بفرستید، بی‌نیاز از ثبت‌نام.
footer = نیازی به ثبت‌نام نیست. پیوندی بفرستید و بازی را شروع کنید.
title-page = { $page } · merels
my-games = بازی‌های من

board-of = صفحهٔ { $variant }
rules = قواعد
rules-of = قواعد { $variant }
position = وضعیت:
play = بازی
copy = رونوشت
save = ذخیره
cancel = لغو
start-new-game = شروع بازی تازه
back-to-game = بازگشت به بازی
back-to-games = بازگشت به بازی‌ها
none-right-now = اکنون هیچ.
none-yet = هنوز هیچ.
puzzles = معماها
all-games = همهٔ بازی‌ها

## صفحهٔ نخست

home-title = merels · با دوستانتان دوز بازی کنید
home-heading = با دوستانتان دوز بازی کنید
home-lead = بازی را شروع کنید و پیوندش را بفرستید: نخستین کسی که آن را باز کند روبه‌روی شما می‌نشیند و دیگران زنده تماشا می‌کنند. بی‌نیاز از ثبت‌نام.
home-quick = شروع سریع
home-puzzles-hint = : تنها حرکتی را بیابید که برد را نگه می‌دارد، به گواهی جدول‌های حل‌شده.
home-daily = معمای امروز
home-daily-hint = : برای همه یکی است تا نیمه‌شب به وقت UTC.
home-trainer-hint = : یک پایان‌بازی بُرده را در برابر دفاع بی‌نقص تا آخر بازی کنید.
home-setup = یا همه‌چیز را خودتان برگزینید
home-step-game = ۱. بازی
open-challenges = دعوت‌های باز
challenges-none = اکنون هیچ: با «{ $button }» یکی بسازید.
challenge-is-waiting = منتظر است
home-live = در حال بازی
home-live-none = اکنون بازی‌ای نیست: از بالا یکی را شروع کنید.
turns-so-far = { $count ->
    [one] تاکنون { $count } حرکت
   *[other] تاکنون { $count } حرکت
}
quick-level = سطح { $level }

## آماده کردن بازی

start-friend = بازی با دوست
start-open = دعوت باز
start-computer = بازی با رایانه
setup-step-time = ۲. زمان
setup-time = زمان
setup-custom = دلخواه
setup-minutes = دقیقه
setup-seconds = + ثانیه
setup-step-colour = ۳. بازی با رنگ
setup-colour = بازی با رنگ
setup-random = تصادفی
setup-step-opponent = ۴. حریف
setup-opponent = حریف
setup-level = سطح
setup-open-hint = دعوت باز در صفحهٔ نخست فهرست می‌شود تا هر کسی بپذیردش.
clock-untimed = بی‌زمان
level-named = { $number } ({ $name })
level-beginner = تازه‌کار
level-casual = تفننی
level-club = باشگاهی
level-strong = قوی
level-expert = کاردان
level-master = استاد
error-not-created = بازی ساخته نشد

## صفحهٔ بازی

no-such-game-why = شاید پیوند نادرست نوشته شده است.
time-control = زمان: { $clock }
preview-alt = { $variant }: صفحه پس از { $count } حرکت
share-qr-label = کد QR پیوند این بازی
embed-title = { $variant }: بازی‌ای در merels
seat-moved = جای شما به دستگاه دیگری رفت: این صفحه اکنون فقط تماشا می‌کند.
take-seat = نشستن
just-watch = فقط تماشا
your-name = نام شما
name-optional = اختیاری
name-hint = نام فقط برچسب است، نه حساب کاربری: هر کسی می‌تواند هر نامی به کار ببرد. حرف، رقم، فاصله و . _ -، تا ۲۰ نویسه.
needs-javascript = بازی به جاوااسکریپت نیاز دارد: بدون آن این صفحه بازی را همان‌گونه نشان می‌دهد که هنگام ساخت صفحه بود.
called-off-challenges = دعوت‌های باز: هر کسی می‌تواند این جاها را بگیرد.
action-cancel = لغو بازی
action-abort = رها کردن
action-resign = تسلیم
action-draw-offer = پیشنهاد تساوی
action-draw-accept = پذیرفتن تساوی
action-decline = رد کردن
action-takeback-offer = درخواست پس گرفتن حرکت
action-takeback-accept = اجازهٔ پس گرفتن
action-refuse = نپذیرفتن
action-rematch = بازی دوباره
action-rematch-decline = رد بازی دوباره
action-claim-win = ادعای برد
action-claim-draw = ادعای تساوی
type-turn = حرکت خود را بنویسید
watch-rematch = تماشای بازی دوباره
share-link = هم‌رسانی این پیوند
share = هم‌رسانی…
qr-code = کد QR
handoff = ادامه روی دستگاهی دیگر
handoff-how = پیوندی بسازید تا روی دستگاه دیگر باز کنید. یک بار و تا { $minutes } دقیقه کار می‌کند. آن را پیش خود نگه دارید.
handoff-move = جایم را به آنجا ببر
handoff-keep = اینجا بماند، آنجا هم باز شود
handoff-link = پیوند جای شما
turns = حرکت‌ها
flip-board = چرخاندن صفحه
mute-sounds = بی‌صدا
download-record = بارگیری ثبت بازی
analysis-link = تحلیل رایانه
replay-first = وضعیت آغازین
replay-previous = حرکت پیشین
replay-next = حرکت بعدی
replay-last = آخرین وضعیت
download-gif = بارگیری GIF
share-image = هم‌رسانی تصویر
embed = جاسازی
embed-how = این بازی را زنده در صفحه‌ای از وبگاه خودتان نشان دهید:
embed-markup = کدی که این بازی را جاسازی می‌کند
embed-on-merels = { $variant } در merels
embed-back = بازی در merels
embed-refused = این جاسازی نمایش‌دادنی نیست

## گفت‌وگو

chat = گفت‌وگو
chat-muted = گفت‌وگو بی‌صداست.
chat-say = چیزی بگویید
chat-say-placeholder = چیزی بگویید…
chat-send = فرستادن
chat-mute = بی‌صدا کردن گفت‌وگو
chat-spectators = نمایش گفت‌وگوی تماشاگران

## بازی‌های من

mine-lead = بازی‌هایی که این مرورگر انجام می‌دهد، فقط در همین مرورگر نگه داشته می‌شوند: بی‌نیاز از ثبت‌نام. جایی که به دستگاه دیگری رفته باشد از این فهرست بیرون می‌رود.
mine-in-progress = در جریان
mine-none = اکنون هیچ:
mine-finished = به‌تازگی پایان‌یافته

## تحلیل

analysis = تحلیل
analysis-exact = ارزش‌های دقیق از جدول حل‌شده: نیم‌حرکت‌ها تا پایان با بازی بی‌نقص.
analysis-search-no-table = جست‌وجویی کوتاه در هر وضعیت (جدول حل‌شدهٔ این صفحه هنوز روی این سرور آماده نیست): امتیاز به مهره برای طرفی که نوبت اوست.
analysis-search = جست‌وجویی کوتاه در هر وضعیت: امتیاز به مهره برای طرفی که نوبت اوست.
analysis-not-reached = نرسید
analysis-ply = نیم‌حرکت
analysis-side = طرف
analysis-column-played = بازی‌شده
analysis-position = وضعیت
analysis-best = بهترین
analysis-column-worth = ارزش
analysis-worth-hint = ارزش حرکتی که بازی شد

## صفحهٔ یک گونه

no-such-variant = چنین گونه‌ای نیست
no-such-variant-why = بازی‌ای با این نام اینجا نیست.
variant-family = گونه‌ای از { $family }
play-variant = بازی { $variant }
rule-changes = تفاوت قواعد
rule-changes-caption = تفاوت { $variant } با دوز نه‌مهرهٔ استاندارد
rule-changes-standard = دوز نه‌مهرهٔ استاندارد

## معماها

puzzles-lead = وضعیت‌هایی از بازی بی‌نقص که در آن‌ها فقط یک حرکت برد را نگه می‌دارد یا تساوی را حفظ می‌کند: هر حرکت دیگری چیزی را از دست می‌دهد، به گواهی جدول حل‌شدهٔ صفحه. آن را بیابید؛ برخی چند حرکت ژرفا دارند و رایانه در میانه بی‌نقص پاسخ می‌دهد.
no-such-puzzle = چنین معمایی نیست
puzzle-task = { $goal ->
    [draw] { $side ->
        [white] سفید بازی می‌کند و تساوی را نگه می‌دارد
       *[black] سیاه بازی می‌کند و تساوی را نگه می‌دارد
    }
   *[win] { $side ->
        [white] سفید بازی می‌کند و می‌برد
       *[black] سیاه بازی می‌کند و می‌برد
    }
}
puzzle-title = { $task } · معمای { $id } · merels
puzzle-number = معمای { $id }
puzzle-rated = امتیاز { $rating }
puzzle-turns-to-find = { $count } حرکت برای یافتن
puzzle-next = معمای بعدی
puzzle-your-rating = امتیاز معمای شما:
puzzle-other-boards = صفحه‌های دیگر
puzzle-needs-javascript = حل کردن به جاوااسکریپت نیاز دارد؛ API (docs/protocol.md) هم حرکت می‌پذیرد.

## مربی پایان‌بازی

trainer = مربی پایان‌بازی
trainer-lead = پایان‌بازی‌های بُرده از جدول‌های حل‌شده: برد را در برابر دفاع بی‌نقص تا آخر بازی کنید. پس از هر حرکت می‌بینید با بازی بی‌نقص چند نیم‌حرکت تا پایان مانده است، و لحظه‌ای که برد به تساوی یا باخت بدل شود آشکارا گفته می‌شود.
trainer-board-endgames = { $variant }: پایان‌بازی‌ها
trainer-starts-lead = هر کدام برای طرفی که نوبت اوست بُرده است، در شمار نیم‌حرکت‌های گفته‌شده اگر هر دو طرف بی‌نقص بازی کنند. رایانه تا جایی که بتواند دفاع می‌کند.
trainer-endgame = پایان‌بازی { $n }
trainer-wins-in = { $side ->
    [white] : سفید در { $plies } نیم‌حرکت می‌برد
   *[black] : سیاه در { $plies } نیم‌حرکت می‌برد
}
trainer-few-men = (مهره‌های کم)
trainer-endgame-title = { $variant }، پایان‌بازی { $n }
trainer-of = پایان‌بازی { $n } از { $count }
trainer-win-in = بردی در { $plies } نیم‌حرکت با بازی بی‌نقص.
trainer-again = از نو
trainer-next = پایان‌بازی بعدی
trainer-all = همهٔ پایان‌بازی‌های این صفحه
trainer-needs-javascript = بازی کردن به جاوااسکریپت نیاز دارد؛ API (docs/protocol.md) هم حرکت می‌پذیرد.
trainer-back = بازگشت به صفحه‌ها
trainer-no-such-endgame = چنین پایان‌بازی‌ای نیست

## پیش‌نمایش پیوند یک بازی

preview-untimed = بی‌زمان
preview-over = بازی تمام شد
preview-invite = { $side ->
    [white] سفید شما را به بازی { $variant } دعوت می‌کند، { $clock }.
   *[black] سیاه شما را به بازی { $variant } دعوت می‌کند، { $clock }.
}
preview-playing = زنده: { $variant }، { $clock }، حرکت { $turn }.
preview-finished = { $how }، پس از { $count } حرکت. { $variant }، { $clock }.
