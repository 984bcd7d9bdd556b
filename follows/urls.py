from django.urls import path

from follows import apis

urlpatterns = [
    path("me/follows", apis.FollowsApi.as_view(), name="api-follows"),
    path("me/follows/<str:username>", apis.FollowApi.as_view(), name="api-follow"),
    path("me/friends/today", apis.FriendsTodayApi.as_view(), name="api-friends-today"),
    path("me/friends/leaderboards/<str:date>/<str:game>", apis.FriendsBoardApi.as_view(), name="api-friends-board"),
]
