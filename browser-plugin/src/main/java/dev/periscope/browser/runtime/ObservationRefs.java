package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.PageChallenge;
import dev.periscope.api.browser.spi.ProviderChallenge;
import dev.periscope.api.browser.spi.ProviderElement;
import dev.periscope.api.browser.spi.ProviderObservation;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The refs of an environment's newest observation: minted when an observation is recorded, resolved
 * when an action names them. Only the newest observation's provider targets are kept, so an older
 * observation can never be acted on. An environment that replaced a lost one also answers for the
 * lost page's observation, once.
 */
final class ObservationRefs {
  private final String environmentId;
  private final int generation;
  private volatile Refs latest;
  private int revision;
  private volatile LostEnvironment predecessor;

  ObservationRefs(String environmentId, int generation) {
    this.environmentId = environmentId;
    this.generation = generation;
  }

  /** The environment a fault ended before this one, which the model has not heard of yet. */
  void inherit(LostEnvironment lost) {
    predecessor = lost;
  }

  Refs latest() {
    return latest;
  }

  String lastUrl() {
    Refs r = latest;
    return r == null ? null : r.observation().url();
  }

  void clear() {
    latest = null;
  }

  /**
   * Turns a provider observation into the newest observation, minting refs. One the model sees
   * ({@code shown}) also tells of the lost environment this one replaced. Caller holds the queue.
   */
  Observation record(ProviderObservation p, boolean shown) {
    revision++;
    Map<String, ProviderElement> byRef = new LinkedHashMap<>();
    Map<String, String> refOfTarget = new java.util.HashMap<>();
    Map<String, String> groupRefs = new LinkedHashMap<>();
    Map<String, String> groupLabels = new LinkedHashMap<>();
    Map<String, List<String>> groupMembers = new LinkedHashMap<>();
    List<Observation.ObservedElement> elements = new ArrayList<>();
    int n = 0;
    for (ProviderElement e : p.elements()) {
      String ref = "e" + (++n);
      byRef.put(ref, e);
      refOfTarget.put(e.target(), ref);
      String group = null;
      if (e.groupKey() != null) {
        group = groupRefs.computeIfAbsent(e.groupKey(), k -> "g" + (groupRefs.size() + 1));
        groupLabels.putIfAbsent(group, e.groupLabel() == null ? "" : e.groupLabel());
        groupMembers.computeIfAbsent(group, k -> new ArrayList<>()).add(ref);
      }
      elements.add(
          new Observation.ObservedElement(
              ref,
              e.kind(),
              e.role(),
              e.name(),
              e.disabled(),
              e.inputType(),
              e.tier(),
              e.pagination(),
              e.section(),
              group,
              e.hint(),
              e.covered(),
              e.state().cutTo(MAX_VALUE_CHARS),
              e.icon(),
              e.ariaHidden()));
    }
    Map<String, dev.periscope.api.browser.spi.ProviderRecord> records = new java.util.HashMap<>();
    p.records().forEach(r -> records.put(r.key(), r));
    List<Observation.Group> groups = new ArrayList<>();
    Map<String, String> groupOfKey = new java.util.HashMap<>();
    groupRefs.forEach((key, ref) -> groupOfKey.put(key, ref));
    groupRefs.forEach(
        (key, ref) -> {
          List<String> members = groupMembers.get(ref);
          var record = records.get(key);
          if (record == null) {
            groups.add(new Observation.Group(ref, groupLabels.get(ref), members));
            return;
          }
          String target =
              record.titleTarget() != null && refOfTarget.containsKey(record.titleTarget())
                  ? refOfTarget.get(record.titleTarget())
                  : members.size() == 1 ? members.get(0) : null;
          groups.add(
              new Observation.Group(
                  ref,
                  record.detail().isEmpty()
                      ? record.title()
                      : record.title() + " · " + record.detail(),
                  members,
                  record.title(),
                  record.detail(),
                  target));
        });
    List<Observation.TextLine> textLines = new ArrayList<>();
    for (var line : p.textLines()) {
      String ref = line.target() == null ? null : refOfTarget.get(line.target());
      String group = line.recordKey() == null ? null : groupOfKey.get(line.recordKey());
      if (ref != null || group != null) {
        textLines.add(new Observation.TextLine(line.line(), ref, group));
      }
    }
    // Each event one line, cut after redaction: a cut before it could show a secret's beginning.
    List<String> events = p.pageEvents().stream().map(ObservationRefs::eventLine).toList();
    LostEnvironment lost = shown ? predecessor : null;
    if (lost != null) {
      predecessor = null;
      if (lost.report()) {
        events = new ArrayList<>(events);
        events.add(0, lost.pageEvent());
      }
    }
    Observation o =
        new Observation(
            "observation-" + UUID.randomUUID(),
            environmentId,
            generation,
            "page-"
                + p.tabs().stream()
                    .filter(dev.periscope.api.browser.PageTab::active)
                    .mapToInt(dev.periscope.api.browser.PageTab::id)
                    .findFirst()
                    .orElse(1),
            revision,
            p.url(),
            p.title(),
            p.text(),
            p.text().length() < p.totalTextChars(),
            p.totalTextChars(),
            elements,
            groups,
            p.elementsTruncated(),
            p.totalElements(),
            digest(p),
            events,
            p.status(),
            p.dialog(),
            p.tabs(),
            challenge(p.challenge(), byRef),
            textLines);
    latest =
        new Refs(
            o,
            Map.copyOf(byRef),
            gated(p.challenge(), byRef),
            p.challenge() != null && p.challenge().wholePage());
    return o;
  }

  /** The most of a field's value an observation shows (the provider sends more, for redaction). */
  static final int MAX_VALUE_CHARS = 200;

  /** The provider's challenge with its element's ref, or null. */
  private static PageChallenge challenge(ProviderChallenge c, Map<String, ProviderElement> byRef) {
    if (c == null) {
      return null;
    }
    String ref = null;
    for (Map.Entry<String, ProviderElement> e : byRef.entrySet()) {
      if (e.getValue().target().equals(c.target())) {
        ref = e.getKey();
        break;
      }
    }
    return new PageChallenge(c.kind(), c.vendor(), c.frame(), ref);
  }

  /**
   * The refs an action on which the challenge stands in the way of (every ref for a whole page).
   */
  private static Set<String> gated(ProviderChallenge c, Map<String, ProviderElement> byRef) {
    if (c == null) {
      return Set.of();
    }
    Set<String> targets = new HashSet<>(c.gated());
    Set<String> refs = new HashSet<>();
    byRef.forEach(
        (ref, e) -> {
          if (c.wholePage() || targets.contains(e.target())) {
            refs.add(ref);
          }
        });
    return Set.copyOf(refs);
  }

  /**
   * Refuses an action on {@code ref} of the newest observation when the challenge it shows stands
   * in the way: {@code BROWSER_CHALLENGE}, saying what to do instead.
   */
  void admit(String observationId, String ref) {
    Refs r = latest;
    if (r == null
        || !r.observation().id().equals(observationId)
        || !r.gated().contains(elementRef(r, ref))
        || r.observation().challenge() == null) {
      return;
    }
    refuse(r, elementRef(r, ref));
  }

  /**
   * Refuses an input that names no element (a key, typing into whatever has focus, a gesture at a
   * point) while the newest observation shows a challenge page, which stands in front of all of it.
   */
  void admitOnPage() {
    Refs r = latest;
    if (r != null && r.wholePage() && r.observation().challenge() != null) {
      refuse(r, null);
    }
  }

  private static void refuse(Refs r, String ref) {
    PageChallenge c = r.observation().challenge();
    String what = c.describe();
    String why =
        switch (c.kind()) {
          case PageChallenge.INTERSTITIAL ->
              what
                  + " stands in front of the site, and nothing on it can be acted on until it"
                  + " passes: a person must get past it (hand the page to one with browser_handoff,"
                  + " if it is offered), or go on elsewhere";
          case PageChallenge.LOGIN_WALL ->
              what
                  + " covers "
                  + ref
                  + ": sign in through it first (its own fields and buttons can be used), or hand"
                  + " the page to a person (browser_handoff)";
          default ->
              ref
                  + (ref.equals(c.ref()) ? " is part of " : " is held back by ")
                  + what
                  + " that has not been solved: a person must solve it (hand the page to one with"
                  + " browser_handoff, if it is offered), or go on elsewhere";
        };
    throw BrowserException.of(ErrorCode.BROWSER_CHALLENGE, why).withUrl(r.observation().url());
  }

  /**
   * The provider element behind a ref of the newest observation, or {@code
   * BROWSER_STALE_REFERENCE}.
   */
  ProviderElement resolve(String observationId, String ref) {
    Refs r = latest;
    if (r == null || !r.observation().id().equals(observationId)) {
      LostEnvironment lost = predecessor;
      if (lost != null && observationId.equals(lost.observationId) && lost.report()) {
        predecessor = null;
        throw lost.lostObservation(observationId);
      }
      throw BrowserException.of(
              ErrorCode.BROWSER_STALE_REFERENCE,
              "observation \"" + observationId + "\" is stale; observe the page again")
          .withUrl(lastUrl());
    }
    ProviderElement e = r.elementsByRef().get(elementRef(r, ref));
    if (e == null) {
      throw BrowserException.of(
              ErrorCode.BROWSER_STALE_REFERENCE,
              (ref.startsWith("g") ? "record \"" : "element \"")
                  + ref
                  + "\" is not in observation \""
                  + observationId
                  + "\"; observe the page again")
          .withUrl(lastUrl());
    }
    return e;
  }

  /**
   * The element ref that {@code ref} names: itself, or for a record's group ref the element that
   * stands for the record (its title link, or its only element); a record of several elements none
   * of which stands for it is refused, naming them.
   */
  private static String elementRef(Refs r, String ref) {
    if (!ref.startsWith("g")) {
      return ref;
    }
    Observation.Group group =
        r.observation().groups().stream().filter(g -> g.ref().equals(ref)).findFirst().orElse(null);
    if (group == null) {
      return ref;
    }
    if (group.target() != null) {
      return group.target();
    }
    StringBuilder members = new StringBuilder();
    for (String member : group.elements()) {
      Observation.ObservedElement e =
          r.observation().elements().stream()
              .filter(x -> x.ref().equals(member))
              .findFirst()
              .orElseThrow();
      if (members.length() > 0) {
        members.append(", ");
      }
      members
          .append(member)
          .append(" (")
          .append(e.kind())
          .append(" — ")
          .append(e.name().isEmpty() ? "(unnamed)" : e.name())
          .append(')');
    }
    throw BrowserException.of(
            ErrorCode.BROWSER_INVALID_ARGUMENT,
            "record "
                + ref
                + " (\""
                + group.title()
                + "\") holds "
                + group.elements().size()
                + " elements and none stands for all of it: "
                + members
                + "; name one of them as element_ref")
        .withUrl(r.observation().url());
  }

  private static String digest(ProviderObservation p) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      for (String part : new String[] {p.url(), p.title(), p.text()}) {
        d.update(String.valueOf(part).getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
      }
      for (ProviderElement e : p.elements()) {
        d.update(e.fingerprint().getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
        // What it shows: a box checked, a field filled, is a change of the page.
        d.update(String.valueOf(e.state()).getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
      }
      for (dev.periscope.api.browser.PageTab t : p.tabs()) {
        d.update(
            ("tab " + t.id() + " " + t.active() + " " + t.url() + " " + t.title())
                .getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
      }
      if (p.dialog() != null) {
        d.update(
            ("dialog " + p.dialog().type() + " " + p.dialog().message())
                .getBytes(StandardCharsets.UTF_8));
      }
      return "sha256:" + HexFormat.of().formatHex(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The most characters of one page event the model is shown. */
  static final int MAX_EVENT_CHARS = 300;

  private static String eventLine(String event) {
    String line = event.replaceAll("\\s+", " ").strip();
    return line.length() > MAX_EVENT_CHARS ? line.substring(0, MAX_EVENT_CHARS - 3) + "..." : line;
  }
}
