from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config import bench, metrics, views
from web.forms import AdminLoginForm

# /admin/login/ is limited per account and per address like every other way in (core.limits).
admin.site.login_form = AdminLoginForm

urlpatterns = [
    *([path("bench/floor/<int:attempt_id>", bench.floor, name="bench-floor")] if settings.BENCH_FLOOR else []),
    path("admin/", admin.site.urls),
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("metrics", metrics.metrics, name="metrics"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its script from a URL, not inline: the pages' Content-Security-Policy holds.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/v1/", include("games.urls")),
    path("api/v1/", include("leaderboard.urls")),
    path("api/v1/", include("leagues.urls")),
    path("api/v1/", include("ratings.urls")),
    path("api/v1/", include("follows.urls")),
    path("api/v1/", include("habits.urls")),
    path("api/v1/", include("reviews.urls")),
    path("api/v1/", include("accounts.urls")),
    path("", include("web.urls")),
    # Must stay last: any other /api/ path is a JSON 404, any other path the site's 404 page.
    re_path(r"^api/", views.ApiNotFound.as_view(), name="api-not-found"),
    re_path(r"^", views.no_page, name=views.NO_PAGE),
]

handler400 = "config.views.bad_request"
handler403 = "config.views.permission_denied"
handler404 = "config.views.page_not_found"
handler500 = "config.views.server_error"
