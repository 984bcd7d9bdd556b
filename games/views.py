from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class HealthApi(APIView):
    """The API answers. (The database check is /healthz.)"""

    authentication_classes: list[type] = []
    permission_classes: list[type] = []

    class OutputSerializer(serializers.Serializer[Any]):
        status = serializers.CharField()

    @extend_schema(operation_id="health", responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer({"status": "ok"}).data)
