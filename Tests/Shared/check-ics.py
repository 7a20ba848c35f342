#!/usr/bin/python3
"""Checks .ics files passconduit wrote, with a real calendar library (Debian python3-icalendar).

Usage: check-ics.py PASSES_JSON ICS...
PASSES_JSON names the .pkpass files the events came from (a JSON list of paths). For each file:
RFC 5545 line rules (CRLF only, lines of at most 75 octets, each line valid UTF-8, folds only
at whole characters), icalendar parses it without errors, every VEVENT has UID, DTSTAMP and
DTSTART, and each event's start (and end) is a date its pass gives, at the instant and in the
UTC offset the pass wrote (no zone: UTC; a date without a time: that day), its own or one of its
upcomingPassInformation entries' (whose whole-day events stand on the entry's written day). Prints one JSON
object per event on stdout; exits 1 with the reasons on stderr when anything is wrong.
"""
import datetime, hashlib, json, sys, zipfile

try:
    from icalendar import Calendar
except ImportError:
    sys.exit("python3-icalendar is missing: apt-get install python3-icalendar")

problems = []

def parse_pass_date(text):
    """A pass date as (kind, value, offset seconds); None if Python cannot read it either."""
    if not isinstance(text, str):
        return None
    t = text.strip()
    if len(t) == 10:
        try:
            return ("day", datetime.date.fromisoformat(t), None)
        except ValueError:
            return None
    t = t.replace(" ", "T", 1)
    if t.endswith("Z"):
        t = t[:-1] + "+00:00"
    # "+0530" -> "+05:30" for older fromisoformat
    if len(t) >= 5 and t[-5] in "+-" and t[-4:].isdigit() and "T" in t[:-5]:
        t = t[:-2] + ":" + t[-2:]
    try:
        d = datetime.datetime.fromisoformat(t)
    except ValueError:
        return None
    if d.tzinfo is None:
        d = d.replace(tzinfo=datetime.timezone.utc)
    return ("instant", d, int(d.utcoffset().total_seconds()))

def pass_dates(path):
    with zipfile.ZipFile(path) as z:
        raw = z.read("pass.json")
    text = raw.decode("utf-8-sig")
    import re
    text = re.sub(r",(\s*[\]}])", r"\1", text)  # Wallet's trailing commas
    p = json.loads(text)
    # A missing identity key reads as "" (as passconduit reads it; such a pass never verifies).
    ident = hashlib.sha256((str(p.get("passTypeIdentifier", "")) + "\0" + str(p.get("serialNumber", ""))).encode()).hexdigest()[:32]
    dates = []
    if "relevantDate" in p:
        dates.append(p["relevantDate"])
    for r in p.get("relevantDates") or []:
        if isinstance(r, dict):
            dates += [r.get(k) for k in ("date", "relevantDate", "startDate", "endDate") if r.get(k)]
    sem = p.get("semantics") if isinstance(p.get("semantics"), dict) else {}
    for k in ("eventStartDate", "eventEndDate", "currentDepartureDate", "currentArrivalDate",
              "originalDepartureDate", "originalArrivalDate"):
        if k in sem:
            dates.append(sem[k])
    # iOS 26 upcoming entries: each entry's date (or its semantics' start) and end; a whole-day
    # event stands on the day the entry's date has in its own offset.
    days = []
    for e in p.get("upcomingPassInformation") or [] if isinstance(p.get("upcomingPassInformation"), list) else []:
        if not isinstance(e, dict):
            continue
        info = e.get("dateInformation") if isinstance(e.get("dateInformation"), dict) else {}
        esem = e.get("semantics") if isinstance(e.get("semantics"), dict) else {}
        for x in (info.get("date"), esem.get("eventStartDate"), esem.get("eventEndDate")):
            d = parse_pass_date(x)
            if d:
                dates.append(x)
                if d[0] == "instant":
                    days.append(("day", d[1].date(), None))
    return ident, [d for d in (parse_pass_date(x) for x in dates) if d] + days

def same(ical_value, pass_date, is_end):
    kind, value, offset = pass_date
    if isinstance(ical_value, datetime.datetime):
        if kind != "instant" or ical_value.tzinfo is None:
            return False
        # iCalendar has whole seconds: compare at that precision.
        return (ical_value == value.replace(microsecond=0)
                and int(ical_value.utcoffset().total_seconds()) == offset)
    if kind != "day":
        return False
    # A whole-day DTEND is the day after the last day.
    return ical_value == (value + datetime.timedelta(days=1) if is_end else value)

def check_lines(name, data):
    if b"\r\n" not in data or data.replace(b"\r\n", b"").count(b"\n") or data.replace(b"\r\n", b"").count(b"\r"):
        problems.append(f"{name}: line ends are not all CRLF")
    if not data.endswith(b"\r\n"):
        problems.append(f"{name}: does not end in CRLF")
    for n, line in enumerate(data.split(b"\r\n")[:-1], 1):
        if len(line) > 75:
            problems.append(f"{name}:{n}: {len(line)} octets")
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(f"{name}:{n}: not UTF-8 on its own (a fold split a character)")
        for b in line:
            if b < 0x20 and b != 0x09 or b == 0x7F:
                problems.append(f"{name}:{n}: control character {b:#x}")
                break

def main():
    passes = {}
    for path in json.loads(sys.argv[1]):
        try:
            ident, dates = pass_dates(path)
        except Exception as e:  # an unreadable pass.json gives no events to compare
            continue
        passes.setdefault(ident, []).extend(dates)
    for name in sys.argv[2:]:
        data = open(name, "rb").read()
        check_lines(name, data)
        try:
            cal = Calendar.from_ical(data)
        except Exception as e:
            problems.append(f"{name}: icalendar cannot parse it: {e}")
            continue
        if cal.errors:
            problems.append(f"{name}: {cal.errors}")
        for key in ("VERSION", "PRODID"):
            if key not in cal:
                problems.append(f"{name}: no {key}")
        for ev in cal.walk("VEVENT"):
            if ev.errors:
                problems.append(f"{name}: event errors {ev.errors}")
            for key in ("UID", "DTSTAMP", "DTSTART", "SUMMARY"):
                if key not in ev:
                    problems.append(f"{name}: an event has no {key}")
            uid = str(ev.get("UID"))
            start = ev.decoded("DTSTART")
            end = ev.decoded("DTEND") if "DTEND" in ev else None
            ident = uid.split("-")[0]
            dates = passes.get(ident)
            if dates is None:
                problems.append(f"{name}: {uid} belongs to no pass given")
            else:
                if not any(same(start, d, False) for d in dates):
                    problems.append(f"{name}: {uid} starts {start!r}, not a date of its pass {dates!r}")
                if end is not None and not any(same(end, d, True) for d in dates):
                    problems.append(f"{name}: {uid} ends {end!r}, not a date of its pass")
                if end is not None and (type(end) is not type(start) or end <= start):
                    problems.append(f"{name}: {uid} ends {end!r} before it starts {start!r}")
            geo = ev.get("GEO")
            # Reminders: each VALARM's action and its trigger as seconds relative to the start.
            alarms = []
            for alarm in ev.walk("VALARM"):
                for key in ("ACTION", "TRIGGER", "DESCRIPTION"):
                    if key not in alarm:
                        problems.append(f"{name}: {uid} has an alarm without {key}")
                trigger = alarm.decoded("TRIGGER") if "TRIGGER" in alarm else None
                if not isinstance(trigger, datetime.timedelta):
                    problems.append(f"{name}: {uid} alarm trigger {trigger!r} is not a duration")
                    continue
                alarms.append({"action": str(alarm.get("ACTION")), "seconds": int(trigger.total_seconds()),
                               "description": str(alarm.get("DESCRIPTION", ""))})
            print(json.dumps({
                "file": name, "uid": uid, "summary": str(ev.get("SUMMARY")),
                "description": str(ev.get("DESCRIPTION", "")), "location": str(ev.get("LOCATION", "")),
                "start": start.isoformat(), "end": end.isoformat() if end is not None else None,
                "offset": int(start.utcoffset().total_seconds()) if isinstance(start, datetime.datetime) else None,
                "status": str(ev.get("STATUS", "")), "sequence": int(ev.get("SEQUENCE", -1)),
                "geo": [geo.latitude, geo.longitude] if geo is not None else None,
                "alarms": alarms,
            }, ensure_ascii=False))
    if problems:
        sys.stderr.write("\n".join(problems[:50]) + "\n")
        sys.exit(1)

main()
