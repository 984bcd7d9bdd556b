from django.urls import path

from accounts import apis

urlpatterns = [
    path("me/export", apis.MeExportApi.as_view(), name="me-export"),
    path("me/delete", apis.MeDeleteApi.as_view(), name="me-delete"),
]
