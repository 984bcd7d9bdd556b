from django.urls import path

from reviews import apis

urlpatterns = [
    path("attempts/<int:attempt_id>/review", apis.AttemptReviewApi.as_view(), name="attempt-review"),
    path("attempts/<int:attempt_id>/review/try", apis.AttemptReviewTryApi.as_view(), name="attempt-review-try"),
    path("attempts/<int:attempt_id>/review/win", apis.AttemptReviewWinApi.as_view(), name="attempt-review-win"),
    path("attempts/<int:attempt_id>/winnable", apis.AttemptWinnableApi.as_view(), name="attempt-winnable"),
]
