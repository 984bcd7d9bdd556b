from django.urls import path

from habits import apis

urlpatterns = [
    path("me/calendar", apis.CalendarApi.as_view(), name="api-my-calendar"),
    path("me/reminder", apis.ReminderApi.as_view(), name="api-my-reminder"),
]
