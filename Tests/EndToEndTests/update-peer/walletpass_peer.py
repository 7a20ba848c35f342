"""django-walletpass 5.0.1 as a PassKit web-service peer for passconduit's `update` tests.

One file is the whole Django project (shared/research/walletpass-peer.md): django_walletpass and
rest_framework, SQLite in --dir, the package's urls under api/passes/, Django's threaded WSGI
server on 127.0.0.1 (port 0: the kernel picks; the port is written to --port-file).

Test-only control routes (not part of the peer; the tests drive the peer through them):
  POST /control/store?type=T&serial=S&token=K   body: .pkpass bytes, stored as the pass's current
       version through the package's own PassBuilder.write_to_model; answers {"updatedAt": iso}
  GET  /control/registrations                   [{"device","type","serial","pushToken"}]
  GET  /control/requests                        every request the peer saw: method, path (with
       query), and the conditional headers (never the Authorization value)
  GET  /control/pushes                          pushes the peer tried to send (one per registered
       device and save)
"""
import argparse, json, os, sys, threading

parser = argparse.ArgumentParser()
parser.add_argument("--dir", required=True)
parser.add_argument("--port-file", required=True)
args = parser.parse_args()
os.makedirs(args.dir, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)

import django
from django.conf import settings

settings.configure(
    DEBUG=False,
    SECRET_KEY="passconduit-tests-only",
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "rest_framework", "django_walletpass"],
    MIDDLEWARE=["django.middleware.security.SecurityMiddleware", __name__ + ".RecordRequests"],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(args.dir, "peer.sqlite3"),
                           "OPTIONS": {"timeout": 20}}},
    MEDIA_ROOT=os.path.join(args.dir, "media"),
    USE_TZ=True,
    DEFAULT_AUTO_FIELD="django.db.models.AutoField",
    WALLETPASS={
        "PASS_TYPE_ID": "pass.org.passconduit.boarding",
        "TEAM_ID": "PCTEAM0001",
        "SERVICE_URL": "http://127.0.0.1/api/passes/",
        "WALLETPASS_PUSH_CLASS": __name__ + ".RecordingPush",
    },
    LOGGING_CONFIG=None,
)
django.setup()

from django.core.management import call_command
from django.http import HttpResponse, JsonResponse
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt

requests_seen = []
pushes = []
lock = threading.RLock()


class RecordRequests:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith("/control/"):
            with lock:
                requests_seen.append({
                    "method": request.method,
                    "path": request.get_full_path(),
                    "ifModifiedSince": request.headers.get("If-Modified-Since"),
                    "ifNoneMatch": request.headers.get("If-None-Match"),
                    "hasAuthorization": "Authorization" in request.headers,
                })
        return self.get_response(request)


class RecordingPush:
    """Stands in for APNs: the peer calls it on every save of a registered pass."""
    class Response:
        status = "200"

    def push_notification_from_instance(self, registration):
        with lock:
            pushes.append({"device": registration.device_library_identifier, "serial": registration.pazz.serial_number})
        return self.Response()


@csrf_exempt
def store(request):
    from django_walletpass.models import Pass
    from django_walletpass.services.pass_builder import PassBuilder
    from django_walletpass.settings import dwpconfig
    ptype, serial, token = request.GET["type"], request.GET["serial"], request.GET["token"]
    instance = Pass.objects.filter(pass_type_identifier=ptype, serial_number=serial).first()
    builder = PassBuilder()
    builder.builded_pass_content = request.body
    builder.pass_data_required.update({"serialNumber": serial, "authenticationToken": token})
    with lock:
        # write_to_model takes the type from the configuration (one type at a time).
        dwpconfig["PASS_TYPE_ID"] = ptype
        instance = builder.write_to_model(instance)
    instance.refresh_from_db()
    return JsonResponse({"updatedAt": instance.updated_at.isoformat()})


def registrations(request):
    from django_walletpass.models import Registration
    return JsonResponse([{"device": r.device_library_identifier, "type": r.pazz.pass_type_identifier,
                          "serial": r.pazz.serial_number, "pushToken": r.push_token}
                         for r in Registration.objects.all()], safe=False)


def seen(request):
    with lock:
        return JsonResponse(list(requests_seen), safe=False)


def pushed(request):
    with lock:
        return JsonResponse(list(pushes), safe=False)


urlpatterns = [
    path("api/passes/", include("django_walletpass.urls")),
    path("control/store", store),
    path("control/registrations", registrations),
    path("control/requests", seen),
    path("control/pushes", pushed),
]

call_command("migrate", verbosity=0, interactive=False)

from django.core.servers.basehttp import WSGIServer, WSGIRequestHandler, ThreadedWSGIServer
from django.core.wsgi import get_wsgi_application


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *a):
        pass


server = ThreadedWSGIServer(("127.0.0.1", 0), QuietHandler, ipv6=False)
server.set_app(get_wsgi_application())
with open(args.port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(args.port_file + ".tmp", args.port_file)
server.serve_forever()
