#!/usr/bin/env bash
# make-layout-passes.sh: signed sample passes for the layouts Wallet added after iOS 17: the iOS 18
# poster event ticket (preferredStyleSchemes ["posterEventTicket", "eventTicket"]) and the iOS 26
# semantic boarding pass (["semanticBoardingPass", "boardingPass"]), and the cases where Wallet falls
# back to the classic event ticket or boarding pass.
#
# The keys and values follow Apple's documented examples ("Creating a poster event pass using
# semantic tags": a general event, a sports event with team abbreviations, a live performance with
# performer names) and passkit-generator's example models posterEventTicketWithNewSeats and
# posterEventTicketWithAdmissionLevel (../shared/corpus/pkpass-real/templates-json/), completed with
# the keys Apple lists as required (eventName, venueName, venueRegionName, venueRoom; sports
# home/awayTeamAbbreviation; live performance performerNames) and images at Apple's sizes
# (Pass Builder's PassPackage: artwork 358 x 448 pt, background 345 x 505, secondaryLogo <= 135 x 12,
# shipped @2x). The artwork is drawn here (gradients and bands), no third-party picture is copied.
# The boarding passes follow "Creating an airline boarding pass using semantic tags" (every required
# key) with the values of United's sample pass (KDE kpkpass autotests, in Tests/WalletPassTests/
# Fixtures/pkpass-real) and passkit-generator's semanticBoardingPass model.
#
# Writes layout-passes/ beside this script: the .pkpass files, expected.tsv (file, the scheme
# passconduit must draw, the fallback reason) and README.md. Signed with the test CA in ca/
# (make-passes.sh makes it; the "event" and "boarding" leaves) under a frozen clock, so a re-run
# rewrites the same bytes. Needs openssl, python3 and faketime.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
ca="$here/ca"
out="$here/layout-passes"

for tool in openssl python3 faketime; do
  command -v "$tool" >/dev/null || { echo "make-layout-passes.sh: $tool is required" >&2; exit 69; }
done
[[ -f "$ca/event.pem" && -f "$ca/event.key" ]] || { echo "make-layout-passes.sh: run make-passes.sh first (no ca/event.pem)" >&2; exit 66; }

export TZ=UTC
rm -rf "$out"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

CA="$ca" OUT="$out" WORK="$work" python3 - <<'PY'
import hashlib, json, math, os, struct, subprocess, zipfile, zlib

CA, OUT, WORK = os.environ["CA"], os.environ["OUT"], os.environ["WORK"]
SIGN_TIME = "2026-03-01 10:00:00"
ZIP_TIME = (2026, 3, 1, 10, 0, 0)

def encode(width, height, pixel):
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            rows += bytes(pixel(x, y))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b"")

def poster(width, height, top, bottom, accent):
    """Poster art: a vertical gradient from top to bottom colour, a sun disc and diagonal bands."""
    cx, cy, r = width * 0.62, height * 0.38, width * 0.24
    def pixel(x, y):
        t = y / (height - 1)
        c = [int(top[i] * (1 - t) + bottom[i] * t) for i in range(3)]
        if (x - cx) ** 2 + (y - cy) ** 2 < r * r:
            c = list(accent)
        elif ((x + 2 * y) // 48) % 5 == 0:
            c = [min(255, v + 28) for v in c]
        return (c[0], c[1], c[2], 255)
    return encode(width, height, pixel)

def flat(width, height, rgb, alpha=255):
    return encode(width, height, lambda x, y: (rgb[0], rgb[1], rgb[2], alpha))

def wordmark(width, height, rgb):
    """A secondary logo: a row of bars on transparent ground, like a sponsor's wordmark."""
    return encode(width, height, lambda x, y: (rgb[0], rgb[1], rgb[2], 255 if (x // 6) % 3 != 2 and 2 <= y < height - 2 else 0))

ICON = {"icon.png": flat(29, 29, (200, 40, 80)), "icon@2x.png": flat(58, 58, (200, 40, 80))}
LOGO = {"logo@2x.png": wordmark(160, 50, (255, 255, 255))}
LOGO_DARK = {"logo@2x.png": wordmark(160, 50, (20, 50, 120))}
ART_GALA = poster(716, 896, (20, 24, 70), (190, 60, 110), (255, 200, 80))
ART_JAZZ = poster(716, 896, (10, 60, 60), (230, 150, 40), (250, 240, 220))
BG_SPORTS = poster(690, 1010, (10, 40, 120), (20, 120, 60), (250, 250, 250))
SPONSOR = wordmark(270, 24, (255, 255, 255))

def sign(manifest, signer):
    src, sig = os.path.join(WORK, "manifest.json"), os.path.join(WORK, "signature")
    with open(src, "wb") as f:
        f.write(manifest)
    subprocess.run(["faketime", "-f", SIGN_TIME, "openssl", "cms", "-sign", "-binary", "-in", src, "-outform", "DER",
                    "-out", sig, "-signer", os.path.join(CA, signer + ".pem"), "-inkey", os.path.join(CA, signer + ".key"),
                    "-certfile", os.path.join(CA, "wwdr.pem")], check=True)
    with open(sig, "rb") as f:
        return f.read()

expected = []

def write_pass(fname, pass_json, images, scheme, reason="", signer="event"):
    files = {"pass.json": (json.dumps(pass_json, indent=2, ensure_ascii=False) + "\n").encode("utf-8")}
    files.update(ICON)
    files.update(images)
    manifest = (json.dumps({n: hashlib.sha1(b).hexdigest() for n, b in sorted(files.items())}, indent=2) + "\n").encode()
    entries = sorted(files.items()) + [("manifest.json", manifest), ("signature", sign(manifest, signer))]
    with zipfile.ZipFile(os.path.join(OUT, fname), "w") as z:
        for name, data in entries:
            zi = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.create_system = 3
            zi.external_attr = 0o644 << 16
            z.writestr(zi, data)
    expected.append((fname, pass_json["passTypeIdentifier"] + "/" + pass_json["serialNumber"], scheme, reason))

def ticket(serial, description, semantics, **extra):
    d = {"formatVersion": 1, "passTypeIdentifier": "pass.org.passconduit.event", "serialNumber": serial,
         "teamIdentifier": "PCTEAM0001", "organizationName": "Passconduit Live", "description": description,
         "preferredStyleSchemes": ["posterEventTicket", "eventTicket"],
         "backgroundColor": "rgb(24, 24, 40)", "foregroundColor": "rgb(255, 255, 255)", "labelColor": "rgb(220, 220, 235)",
         "logoText": "Passconduit Live",
         # The classic fields an older device (and a failed poster) shows.
         "eventTicket": {
             "primaryFields": [{"key": "event", "label": "EVENT", "value": semantics.get("eventName", description) if isinstance(semantics, dict) else description}],
             "secondaryFields": [{"key": "venue", "label": "VENUE", "value": "Royal Festival Hall"}],
             "auxiliaryFields": [{"key": "date", "label": "DATE", "value": "2026-05-01T19:30+01:00", "dateStyle": "PKDateStyleMedium",
                                  "timeStyle": "PKDateStyleShort"}],
             "backFields": [{"key": "terms", "label": "Terms", "value": "Sample pass made by passconduit's Samples/make-layout-passes.sh."}],
         },
         "semantics": semantics,
         "barcodes": [{"format": "PKBarcodeFormatQR", "message": "PC-" + serial, "messageEncoding": "iso-8859-1", "altText": serial}],
         "relevantDates": [{"startDate": "2026-05-01T18:00:00+01:00", "endDate": "2026-05-01T23:00:00+01:00"}]}
    d.update(extra)
    return d

GALA = {"eventType": "PKEventTypeGeneric", "eventName": "Spring Gala", "venueName": "Royal Festival Hall",
        "venueRegionName": "London", "venueRoom": "Main Auditorium", "eventStartDate": "2026-05-01T19:30:00+01:00",
        "eventEndDate": "2026-05-01T23:00:00+01:00", "attendeeName": "Alex Sample",
        "venueLocation": {"latitude": 51.5058, "longitude": -0.1166},
        "seats": [{"seatSection": "Stalls", "seatRow": "H", "seatNumber": "12", "seatSectionColor": "#FFD700"},
                  {"seatSection": "Stalls", "seatRow": "H", "seatNumber": "13", "seatSectionColor": "#FFD700"}]}
write_pass("poster-event.pkpass", ticket("GALA-1", "Spring Gala", GALA, eventLogoText="SPRING GALA"),
           {"artwork@2x.png": ART_GALA, "secondaryLogo@2x.png": SPONSOR, **LOGO}, "posterEventTicket")

SPORTS = {"eventType": "PKEventTypeSports", "eventName": "Harbour City vs Northbridge", "venueName": "Harbour Stadium",
          "venueRegionName": "Harbour City", "venueRoom": "North Stand", "homeTeamName": "Harbour City",
          "homeTeamAbbreviation": "HBC", "awayTeamName": "Northbridge", "awayTeamAbbreviation": "NBR",
          "leagueName": "Coastal League", "sportName": "Football", "eventStartDate": "2026-08-15T15:00:00+01:00",
          "seats": [{"seatSection": "112", "seatRow": "K", "seatNumber": "7", "seatAisle": "4", "seatLevel": "Upper"}]}
write_pass("poster-sports.pkpass", ticket("MATCH-7", "Harbour City vs Northbridge", SPORTS, eventLogoText="Coastal League",
                                          footerBackgroundColor="rgb(200, 16, 46)", suppressHeaderDarkening=True),
           {"background@2x.png": BG_SPORTS, "secondaryLogo@2x.png": SPONSOR}, "posterEventTicket")

JAZZ = {"eventType": "PKEventTypeLivePerformance", "eventName": "South Bay Jazz Festival", "venueName": "The Stadium",
        "venueRegionName": "South Bay", "venueRoom": "Open-air stage", "performerNames": ["The Quartet", "Maduk"],
        "eventStartDateInfo": {"date": "2026-07-10T17:00:00-07:00", "timeZone": "America/Los_Angeles"},
        "eventEndDate": "2026-07-12T23:00:00-07:00", "admissionLevel": "VIP Access", "admissionLevelAbbreviation": "VIP"}
write_pass("poster-live.pkpass", ticket("JAZZ-3", "South Bay Jazz Festival", JAZZ, eventLogoText="South Bay Jazz",
                                        useAutomaticColors=True),
           {"artwork@2x.png": ART_JAZZ}, "posterEventTicket")

# The fallbacks: the same ticket with one requirement broken; Wallet draws the classic event ticket.
no_venue = {k: v for k, v in GALA.items() if k != "venueName"}
write_pass("fallback-no-venue.pkpass", ticket("GALA-2", "Spring Gala", no_venue, eventLogoText="SPRING GALA"),
           {"artwork@2x.png": ART_GALA, **LOGO}, "eventTicket", "semantics.venueName is missing")
write_pass("fallback-semantics-string.pkpass", ticket("GALA-3", "Spring Gala", "Spring Gala at the Royal Festival Hall"),
           {"artwork@2x.png": ART_GALA, **LOGO}, "eventTicket", "semantics is a string, not an object")
write_pass("fallback-no-artwork.pkpass", ticket("GALA-4", "Spring Gala", GALA, eventLogoText="SPRING GALA"),
           dict(LOGO), "eventTicket", "the pass has no artwork or background image")
no_teams = {k: v for k, v in SPORTS.items() if k != "awayTeamAbbreviation"}
write_pass("fallback-sports-no-team.pkpass", ticket("MATCH-8", "Harbour City vs Northbridge", no_teams,
                                                    footerBackgroundColor="rgb(200, 16, 46)"),
           {"background@2x.png": BG_SPORTS}, "eventTicket", "semantics.awayTeamAbbreviation is missing")

# The event guide below a poster (iOS 18, 26): the venue map the pass ships (venueMap.png, as
# passkit-generator's posterEventTicketWithNewSeats model does; drawn here: stands around a
# stage, the seat block marked), the guide's https links, Additional Info, and two upcoming
# events whose names and venues are keys of en.lproj/pass.strings (UTF-8), translated like fields.
def venue_map(width, height):
    def pixel(x, y):
        c = (236, 232, 220)
        if width * 0.35 <= x < width * 0.65 and height * 0.08 <= y < height * 0.22:
            c = (60, 60, 70)                                   # the stage
        elif (x - width / 2) ** 2 / (width * 0.42) ** 2 + (y - height * 0.15) ** 2 / (height * 0.8) ** 2 < 1 \
                and y > height * 0.3 and (x // 24 + y // 24) % 2 == 0:
            c = (150, 160, 185)                                # stalls
        if width * 0.44 <= x < width * 0.52 and height * 0.55 <= y < height * 0.63:
            c = (220, 40, 60)                                  # your block
        return (c[0], c[1], c[2], 255)
    return encode(width, height, pixel)

VENUE_MAP = venue_map(686, 458)
GUIDE_STRINGS = {"en.lproj/pass.strings": ('"UPCOMING_MATINEE" = "Spring Gala: Family Matinee";\n'
                                           '"UPCOMING_CLOSING" = "Spring Gala: Closing Night";\n'
                                           '"VENUE_CLORE" = "Clore Ballroom";\n').encode("utf-8")}
write_pass("poster-event-guide.pkpass", ticket("GALA-5", "Spring Gala", GALA, eventLogoText="SPRING GALA",
               parkingInformationURL="https://venue.example/parking", bagPolicyURL="https://venue.example/bags",
               orderFoodURL="https://venue.example/food", directionsInformationURL="https://venue.example/directions",
               upcomingPassInformation=[
                   {"type": "event", "identifier": "matinee", "name": "UPCOMING_MATINEE",
                    "dateInformation": {"date": "2026-05-02T14:00:00+01:00"},
                    "semantics": {"venueName": "VENUE_CLORE"},
                    "images": {"venueMap": {"reuseExisting": True}}},
                   {"type": "event", "identifier": "closing", "name": "UPCOMING_CLOSING",
                    "dateInformation": {"date": "2026-05-03T19:30:00+01:00"},
                    "semantics": {"venueName": "Royal Festival Hall"}}]),
           {"artwork@2x.png": ART_GALA, "secondaryLogo@2x.png": SPONSOR, "venueMap@2x.png": VENUE_MAP, **LOGO, **GUIDE_STRINGS},
           "posterEventTicket")
# A required tag of the wrong type (Apple types venueRoom as a string): the classic ticket, which
# has no event guide, so its venue map is not shown either.
write_pass("fallback-venue-room-number.pkpass", ticket("GALA-6", "Spring Gala", {**GALA, "venueRoom": 42},
                                                       eventLogoText="SPRING GALA"),
           {"artwork@2x.png": ART_GALA, "venueMap@2x.png": VENUE_MAP, **LOGO}, "eventTicket",
           "semantics.venueRoom is a number, not text")

# Semantic boarding passes (iOS 26).
FLIGHT = {"airlineCode": "UA", "flightCode": "UA987", "flightNumber": 987, "departureAirportCode": "ORD",
          "departureAirportName": "O'Hare International Airport", "departureCityName": "Chicago", "departureGate": "C10",
          "departureTerminal": "1", "departureLocationTimeZone": "America/Chicago", "destinationAirportCode": "CDG",
          "destinationAirportName": "Paris Charles de Gaulle Airport", "destinationCityName": "Paris",
          "destinationLocationTimeZone": "Europe/Paris", "originalBoardingDate": "2026-12-09T22:10:00Z",
          "originalDepartureDate": "2026-12-09T23:00:00Z", "originalArrivalDate": "2026-12-10T07:01:00Z",
          "passengerName": {"givenName": "Lani", "familyName": "Martinez"}, "boardingGroup": "2", "boardingZone": "2",
          "seats": [{"seatRow": "52", "seatNumber": "C"}], "ticketFareClass": "Economy", "membershipProgramName": "MileagePlus",
          "membershipProgramStatus": "Premier Silver", "confirmationNumber": "H8JP44",
          "passengerEligibleSecurityPrograms": ["PKTransitSecurityProgramTSAPreCheck"],
          "internationalDocumentsAreVerified": True, "internationalDocumentsVerifiedDeclarationName": "Travel Ready",
          "passengerServiceSSRs": ["WCHR"]}

def flight(serial, semantics, **extra):
    d = {"formatVersion": 1, "passTypeIdentifier": "pass.org.passconduit.boarding", "serialNumber": serial,
         "teamIdentifier": "PCTEAM0001", "organizationName": "Passconduit Air", "description": "Boarding pass UA 987",
         "preferredStyleSchemes": ["semanticBoardingPass", "boardingPass"],
         "backgroundColor": "rgb(255, 255, 255)", "foregroundColor": "rgb(0, 0, 0)", "labelColor": "rgb(90, 90, 110)",
         "boardingPass": {
             "transitType": "PKTransitTypeAir",
             "headerFields": [{"key": "gate", "label": "GATE", "value": "C10"}],
             "primaryFields": [{"key": "from", "label": "CHICAGO", "value": "ORD"}, {"key": "to", "label": "PARIS", "value": "CDG"}],
             "auxiliaryFields": [{"key": "passenger", "label": "PASSENGER NAME", "value": "Lani Martinez"},
                                 {"key": "seat", "label": "SEAT NUMBER", "value": "52C"}],
             "secondaryFields": [{"key": "boards", "label": "BOARDING TIME", "value": "16:10"}],
             "backFields": [{"key": "terms", "label": "Terms", "value": "Sample pass made by passconduit's Samples/make-layout-passes.sh."}],
         },
         "semantics": semantics,
         "barcodes": [{"format": "PKBarcodeFormatAztec", "message": "M1MARTINEZ/LANI       EH8JP44 ORDCDGUA 0987 343Y052C0288 100",
                       "messageEncoding": "iso-8859-1"}]}
    d.update(extra)
    return d

write_pass("semantic-boarding.pkpass", flight("UA987-1", FLIGHT), dict(LOGO_DARK), "semanticBoardingPass", signer="boarding")
no_city = {k: v for k, v in FLIGHT.items() if k != "departureCityName"}
write_pass("fallback-boarding-no-city.pkpass", flight("UA987-2", no_city), dict(LOGO_DARK), "boardingPass",
           "semantics.departureCityName is missing", signer="boarding")
train = flight("UA987-3", FLIGHT)
train["boardingPass"]["transitType"] = "PKTransitTypeTrain"
write_pass("fallback-boarding-train.pkpass", train, dict(LOGO_DARK), "boardingPass",
           "boardingPass.transitType is PKTransitTypeTrain, not PKTransitTypeAir", signer="boarding")

# Poster generic passes (iOS 27): the style key posterGeneric, with a classic generic dict for older
# devices as Apple asks ("Creating a poster generic pass"; the WWDC26 session 209 snippet), a
# background at Apple's 345 x 505 pt, a primaryLogo at most 126 x 30 pt, a header field, a first
# primary field without a label (the bold title), the footer fields (only the first is drawn),
# featuredActions and additionalInfoFields below the pass, labels localized in en.lproj/pass.strings.
BG_MUSEUM = poster(690, 1010, (30, 20, 60), (120, 40, 30), (240, 200, 120))
PRIMARY_LOGO = wordmark(252, 60, (255, 255, 255))

def member(serial, poster_dict, classic=True, **extra):
    d = {"formatVersion": 1, "passTypeIdentifier": "pass.org.passconduit.generic", "serialNumber": serial,
         "teamIdentifier": "PCTEAM0001", "organizationName": "City Museum", "description": "City Museum membership",
         "backgroundColor": "rgb(40, 30, 70)", "foregroundColor": "rgb(255, 255, 255)", "labelColor": "rgb(230, 220, 240)",
         "logoText": "City Museum",
         "posterGeneric": poster_dict,
         "barcodes": [{"format": "PKBarcodeFormatQR", "message": "CM-" + serial, "messageEncoding": "iso-8859-1", "altText": serial}]}
    if classic:
        d["generic"] = {
            "primaryFields": [{"key": "name", "label": "MEMBER", "value": "Alex Sample"}],
            "secondaryFields": [{"key": "level", "label": "LEVEL", "value": "Family"}],
            "backFields": [{"key": "terms", "label": "Terms", "value": "Sample pass made by passconduit's Samples/make-layout-passes.sh."}],
        }
    d.update(extra)
    return d

MUSEUM = {
    "headerFields": [{"key": "since", "label": "member_since", "value": "2019"}],
    "primaryFields": [{"key": "title", "value": "Family Membership"},
                      {"key": "name", "label": "member_label", "value": "Alex Sample"}],
    "footerFields": [{"key": "expires", "label": "VALID UNTIL", "value": "31 Dec 2027"},
                     {"key": "guests", "label": "GUESTS", "value": "2 per visit"}],
    "additionalInfoFields": [{"key": "hours", "label": "OPENING HOURS", "value": "Tue-Sun 10:00-18:00"},
                             {"key": "cloak", "label": "CLOAKROOM", "value": "Free for members"}],
    "backFields": [{"key": "terms", "label": "Terms", "value": "Membership is personal. Sample pass made by passconduit's Samples/make-layout-passes.sh."}],
}
STRINGS = {"en.lproj/pass.strings": '"member_since" = "MEMBER SINCE";\n"member_label" = "MEMBER";\n'.encode("utf-16")}
write_pass("poster-generic.pkpass", member("MUSEUM-1", MUSEUM, featuredActions=[
               {"identifier": "hours", "type": "viewSchedule", "url": "https://museum.example/visit"},
               {"identifier": "shop", "type": "shop", "url": "https://museum.example/shop"},
               {"identifier": "call", "type": "call", "url": "tel:+44-20-7946-0000"}]),
           {"background@2x.png": BG_MUSEUM, "primaryLogo@2x.png": PRIMARY_LOGO, **STRINGS}, "posterGeneric", signer="generic")

# posterGeneric alone (valid on iOS 27, refused before), no image: the card colour, no gradients.
write_pass("poster-generic-only.pkpass", member("MUSEUM-2", {
               "headerFields": [{"key": "since", "label": "MEMBER SINCE", "value": "2021"}],
               "primaryFields": [{"key": "name", "label": "MEMBER", "value": "Sam Example"},
                                 {"key": "level", "label": "LEVEL", "value": "Student"}],
               "footerFields": [{"key": "expires", "label": "VALID UNTIL", "value": "30 Sep 2027"}]},
               classic=False, suppressHeaderDarkening=True), {}, "posterGeneric", signer="generic")

# Hostile: markup in every text below the pass, links of every unsafe scheme (left out), and a
# thousand-and-one upcoming events would be bounded; here three events with markup in their names.
HOSTILE = {
    "primaryFields": [{"key": "title", "value": "<b>Bold</b> & \"quoted\""}],
    "footerFields": [{"key": "f", "label": "<i>FOOT</i>", "value": "<script>alert(1)</script>"}],
    "additionalInfoFields": [{"key": "x", "label": "<img src=x onerror=alert(1)>", "value": "<a href=\"javascript:alert(2)\">click</a>"}],
}
write_pass("hostile-below.pkpass", member("MUSEUM-666", HOSTILE, classic=False,
               featuredActions=[{"identifier": "a", "type": "shop", "url": "javascript:alert(3)"},
                                {"identifier": "b", "type": "order", "url": "http://insecure.example/order"},
                                {"identifier": "c", "type": "bookStay", "url": "https://safe.example/stay?a=1&b=<2>"},
                                {"identifier": "d", "type": "call", "url": "tel:+1-555-0100"},
                                {"identifier": "e", "type": "shop", "url": "https://third.example/not-shown"}],
               merchandiseURL="javascript:alert(4)", parkingInformationURL="http://insecure.example/parking",
               contactVenueWebsite="https://venue.example/?q=<x>", contactVenueEmail="<b>box@venue.example</b>",
               upcomingPassInformation=[
                   {"type": "event", "identifier": "e1", "name": "<script>alert(5)</script> Night",
                    "dateInformation": {"date": "2027-01-15T19:00:00+00:00"},
                    "semantics": {"venueName": "Hall <b>B</b>"},
                    "URLs": {"merchandiseURL": "javascript:alert(6)"}},
                   {"type": "event", "identifier": "e2", "name": "Matinee"}]),
           {}, "posterGeneric", signer="generic")

with open(os.path.join(OUT, "expected.tsv"), "w") as f:
    f.write("file\tid\tscheme\treason\n")
    for row in expected:
        f.write("\t".join(row) + "\n")
PY

cat > "$out/README.md" <<'EOF'
# Samples of the iOS 18-26 layouts

Made by `../make-layout-passes.sh` (do not edit by hand; re-run it: the bytes come out the same).
Signed by the sample CA's `event` and `boarding` leaves (`pass.org.passconduit.event`,
`pass.org.passconduit.boarding`, team PCTEAM0001), which chain to the test root in `../ca` — valid for `passconduit` run with the samples' trust store,
never for a real device.

Origin of the content: the keys and values follow Apple's documentation ("Creating a poster event
pass using semantic tags": the general, sports and live-performance examples; "Pass" for
`eventLogoText`, `footerBackgroundColor`, `suppressHeaderDarkening`, `useAutomaticColors`) and
passkit-generator's example models `posterEventTicketWithNewSeats` and
`posterEventTicketWithAdmissionLevel` (MIT; `../../shared/corpus/pkpass-real/templates-json/`),
completed with every key Apple lists as required. Image sizes are Apple's (Pass Builder's
`PassPackage.swift`): artwork 358 × 448 pt, background 345 × 505 pt, secondary logo at most
135 × 12 pt, all shipped @2x. The pictures are drawn by the script (gradients, a disc, bands).

`expected.tsv` says which layout passconduit must choose for each file and, for the fallbacks,
the reason `show --verbose` gives.

| file | what it is |
|---|---|
| poster-event.pkpass | general event: artwork, eventLogoText, two seats with a section colour, secondary logo, QR |
| poster-sports.pkpass | sports: team abbreviations, background image, red footerBackgroundColor, four seat elements, no header darkening |
| poster-live.pkpass | live performance over three days: admission level instead of seats, useAutomaticColors, date span |
| fallback-no-venue.pkpass | semantics.venueName missing: classic event ticket |
| fallback-semantics-string.pkpass | semantics is a string, not an object: classic event ticket |
| fallback-no-artwork.pkpass | no artwork or background image: classic event ticket |
| semantic-boarding.pkpass | iOS 26 semantic boarding pass: every required flight key, seat, zone, group, badges (fare class, status, TSA PreCheck, documents verified, WCHR), Aztec |
| fallback-boarding-no-city.pkpass | semantics.departureCityName missing: classic boarding pass |
| fallback-boarding-train.pkpass | transitType PKTransitTypeTrain: classic boarding pass |
| fallback-sports-no-team.pkpass | sports without awayTeamAbbreviation: classic event ticket (its footerBackgroundColor unused) |
| poster-generic.pkpass | iOS 27 poster generic pass with a generic fallback: background 345 × 505 pt, primaryLogo, header field, a bold title (primary field without a label), two footer fields (the first drawn), additionalInfoFields, three featuredActions (two drawn), labels localized in en.lproj/pass.strings (UTF-16) |
| poster-generic-only.pkpass | posterGeneric as the only style, no image, suppressHeaderDarkening |
| poster-event-guide.pkpass | poster event ticket with its event guide below: venueMap@2x.png, four https guide links, two upcoming events named through en.lproj/pass.strings (UTF-8) |
| fallback-venue-room-number.pkpass | semantics.venueRoom is a number (Apple wants text): classic event ticket, its venueMap@2x.png not shown (no event guide) |
| hostile-below.pkpass | poster generic with markup in every text and javascript:/http: featured actions and links (left out), two upcoming events |
EOF
echo "wrote $(ls "$out"/*.pkpass | wc -l) passes to $out"
