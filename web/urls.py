"""The browser pages. The table and the boards fetch their data from /api/v1/ in the page."""

from django.urls import path

from web import friends, views

app_name = "web"

DAY = "<str:date>/<str:game>"

urlpatterns = [
    path("", views.home, name="home"),
    path("favicon.ico", views.favicon, name="favicon"),
    path(f"play/{DAY}", views.play, name="play"),
    path(f"board/{DAY}", views.board, name="board"),
    path(f"friends/{DAY}", friends.friends_board, name="friends-board"),
    path("games/<int:attempt_id>", views.game_review, name="game"),
    path("archive", views.archive, name="archive"),
    path("learn", views.learn_index, name="learn-index"),
    path("learn/<str:game>", views.learn, name="learn"),
    path("calendar", views.month_calendar, name="calendar"),
    path("reminders/stop/<str:token>", views.reminder_stop, name="reminder-stop"),
    path("accounts/reminder/", views.reminder, name="reminder"),
    path("players/<str:username>", views.player, name="player"),
    path("leagues", views.leagues, name="leagues"),
    path("leagues/join/<str:code>", views.league_join, name="league-join"),
    path("leagues/<int:league_id>", views.league, name="league"),
    # Django's default LOGIN_URL is /accounts/login/: no setting needed.
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/guest/", views.guest_play, name="guest"),
    path("accounts/account/", views.account, name="account"),
    path("accounts/delete/", views.account_delete, name="account_delete"),
    path("accounts/email/confirm/<str:token>/", views.email_confirm, name="email_confirm"),
    path("accounts/email/way-back/<str:token>/", views.email_way_back, name="email_way_back"),
    path("accounts/password-reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path("accounts/password-reset/sent/", views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "accounts/reset/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path("accounts/reset/done/", views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
]
