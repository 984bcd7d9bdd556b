from django.urls import path

from games import views

urlpatterns = [
    path("health", views.HealthApi.as_view(), name="api-health"),
]
