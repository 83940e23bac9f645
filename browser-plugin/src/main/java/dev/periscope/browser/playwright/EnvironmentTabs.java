package dev.periscope.browser.playwright;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.PageTab;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The tabs of one environment's context and which is current. A page the context gets while an
 * action of the agent runs ({@link #acting}) is that action's new tab, reported in its
 * observation's page events; one that comes while none runs is closed, and so is one past the tab
 * limit (no tab is ever closed to make room), each failing the action that caused it, or reported
 * as a page event when none did ({@link PageGuards}). A tab that closes itself goes, and the tab
 * used most recently before it becomes current. Used on the lane's thread only, but for {@link
 * #current()}.
 */
final class EnvironmentTabs implements ActionStage {
  /** How long an action waits at most for the windows its document opened to arrive. */
  static final long OPENED_WAIT_MS = 3_000;

  /**
   * How long it waits for more once one has arrived: a count the page's guards made too high (a
   * link whose handler opened the window itself) does not hold the action up for long.
   */
  static final long MORE_WAIT_MS = 300;

  private final BrowserContext context;
  private final int max;
  private final long navigationTimeoutMs;

  /** Gives a tab its page and what watches it. */
  private final java.util.function.BiConsumer<Tab, Page> equip;

  /** Whether the environment is closing: a page closing then is no tab's doing. */
  private final BooleanSupplier ending;

  private final List<Tab> open = new ArrayList<>();
  private volatile Tab current;
  private int nextId = 1;
  private long selections;

  /** Set while the environment opens a page itself: that page is no action's. */
  private boolean creating;

  /**
   * The pages that arrived while the environment opened one itself: all but the one it opened are
   * arrivals as any other, taken up once it has it.
   */
  private final List<Page> arrivedWhileCreating = new ArrayList<>();

  private boolean acting;
  private String actingWhat = "";
  private final Arrivals arrivals = new Arrivals();

  /** Pages closed and not yet reported: drained by the current tab's guards. */
  private final List<String> closedPages = new ArrayList<>();

  /**
   * Its share of a Chromium the user runs, if the context is the user's: then its tabs open in the
   * background, none is brought to the front, and a page it did not open is the user's, left alone.
   */
  private final java.util.Optional<UserTabs> user;

  /** What happened to the tabs since the last observation. */
  private final List<String> events = new ArrayList<>();

  /**
   * Every complaint of pages gone (tabs closed, pages given up) since the recording last took them,
   * marked with their tabs' numbers ({@link #takeRecordedComplaints}), at most {@link
   * PageConsole#RECORDED}; past it, a count.
   */
  private final List<String> goneComplaints = new ArrayList<>();

  private int goneComplaintsOver;

  /**
   * The tabs of {@code context}, at most {@code max}, starting with {@code first} as the current
   * one; {@code equip} gives each tab's page its watchers.
   */
  EnvironmentTabs(
      BrowserContext context,
      Page first,
      int max,
      long navigationTimeoutMs,
      java.util.function.BiConsumer<Tab, Page> equip,
      BooleanSupplier ending,
      java.util.Optional<UserTabs> user) {
    this.user = user;
    this.context = context;
    this.max = max;
    this.navigationTimeoutMs = navigationTimeoutMs;
    this.equip = equip;
    this.ending = ending;
    select(add(first));
    context.onPage(this::arrived);
  }

  /** The tab observations and actions are of. Any thread. */
  Tab current() {
    return current;
  }

  /** The open tabs, by id. */
  List<Tab> all() {
    return List.copyOf(open);
  }

  int max() {
    return max;
  }

  /** A new tab of {@code page}, watched and listed. */
  private Tab add(Page page) {
    Tab t = new Tab(nextId++);
    equip(t, page);
    open.add(t);
    return t;
  }

  /** Gives {@code t} the page {@code page}, watched, and watches for the page closing itself. */
  private void equip(Tab t, Page page) {
    equip.accept(t, page);
    page.onClose(closed -> closedItself(t, closed));
  }

  /** Makes {@code t} the current tab. */
  void select(Tab t) {
    current = t;
    t.selected = ++selections;
  }

  /**
   * Gives tab {@code t} a fresh blank page of the environment's own in place of its page, which it
   * returns for the caller to close: no longer any tab's, its closing is nobody's event. What the
   * old page had not told yet (its page events, its complaints) is told all the same, as a page
   * that leaves tells it ({@link #leave}).
   */
  Page replacePage(Tab t) {
    Page old = t.page;
    t.dialogs.cancelExpiry();
    String mark = t == current ? "" : "tab " + t.id + ": ";
    List<String> untold = untold(t);
    List<String> recorded = t.console.takeRecorded();
    equip(t, newPage());
    untold.forEach(line -> events.add(mark + line));
    keepForRecording(mark, recorded);
    return old;
  }

  /**
   * Opens a blank tab and makes it current; past the limit {@code BROWSER_POLICY_DENIED} naming the
   * setting.
   */
  Tab openBlank() {
    if (open.size() >= max) {
      throw new BrowserException(
          ErrorCode.BROWSER_POLICY_DENIED,
          "this browser keeps at most "
              + max
              + " tabs (plugins.browser.maxTabs): close one with browser_tabs first");
    }
    Tab t = add(newPage());
    select(t);
    return t;
  }

  /** Makes the tab numbered {@code id} current. */
  void select(int id) {
    Tab t = named(id);
    select(t);
    front(t);
  }

  /** Brings {@code t}'s page to the front, unless the window is the user's. */
  private void front(Tab t) {
    if (user.isEmpty()) {
      t.page.bringToFront();
    }
  }

  /**
   * Closes the tab numbered {@code id}; when it was current, the tab used most recently before it
   * takes its place. The only tab is not closed: {@code BROWSER_INVALID_ARGUMENT}.
   */
  void close(int id) {
    Tab t = named(id);
    if (open.size() == 1) {
      throw new BrowserException(
          ErrorCode.BROWSER_INVALID_ARGUMENT,
          "/tab: tab " + t.id + " is the only one; open another first, or browser_open here");
    }
    leave(t);
    if (current == t) {
      selectRecent();
    }
    t.page.close();
  }

  /**
   * Takes {@code t} out of the open tabs; what it had not told yet (its page events, its
   * complaints) is told with its number in the next page events, and kept for the recording.
   */
  private void leave(Tab t) {
    open.remove(t);
    t.dialogs.cancelExpiry();
    untold(t).forEach(line -> events.add("tab " + t.id + ": " + line));
    keepForRecording("tab " + t.id + ": ", t.console.takeRecorded());
  }

  /** Complaints of a page that went, {@code mark}ed, kept for the recording's next frame. */
  private void keepForRecording(String mark, List<String> complaints) {
    for (String line : complaints) {
      if (goneComplaints.size() < PageConsole.RECORDED) {
        goneComplaints.add(mark + line);
      } else {
        goneComplaintsOver++;
      }
    }
  }

  /** The open tab numbered {@code id}, or {@code BROWSER_INVALID_ARGUMENT} naming the open ones. */
  private Tab named(int id) {
    for (Tab t : open) {
      if (t.id == id) {
        return t;
      }
    }
    throw new BrowserException(
        ErrorCode.BROWSER_INVALID_ARGUMENT,
        "/tab: there is no tab "
            + id
            + "; the open tabs are "
            + String.join(", ", open.stream().map(t -> String.valueOf(t.id)).toList()));
  }

  /**
   * Runs an action's work with the pages it opens taken as its tabs, each reported as {@code what}
   * opened it.
   */
  /**
   * While a person has the page (a handoff's live view runs), every page that opens is theirs and
   * kept as a tab, however late its event comes: also after the handoff, through the agent's first
   * call after it (a popup's event can wait for a dialog the person's next click opened, until the
   * agent answers it). On the lane's thread.
   */
  void personHolds(boolean holds) {
    personHolds = holds;
    personLately = holds ? 0 : 2;
  }

  private boolean personHolds;

  /**
   * How many actions may still begin before a page that opens is no longer the person's: 2 as a
   * handoff ends (the agent's first call after it is covered to its end), 0 once it is over.
   */
  private int personLately;

  /**
   * An action's stage: a page that opens while it runs is its tab ({@link #awaitOpened}), and the
   * person's handoff ends with it.
   */
  @Override
  public <T> T around(String what, Callable<T> work) throws Exception {
    if (!personHolds && personLately > 0) {
      personLately--;
    }
    acting = true;
    actingWhat = what;
    arrivals.mark();
    try {
      return work.call();
    } finally {
      acting = false;
    }
  }

  /**
   * Waits, within the navigation timeout and at most {@value #OPENED_WAIT_MS} ms, and not past
   * {@code until} ({@link System#nanoTime()}), until the pages an action's document opened ({@code
   * count}) have arrived, or {@value #MORE_WAIT_MS} ms passed since the last one came; they arrive
   * as events, only while a call runs, so this waits in short Playwright calls. One that comes
   * later is closed and reported, as one no action opened.
   */
  void awaitOpened(int count, long until) {
    arrivals.await(
        current.page, count, Math.min(navigationTimeoutMs, OPENED_WAIT_MS), until, MORE_WAIT_MS);
  }

  /** The pages closed and not yet reported, for {@code t}'s guards when it is current. */
  List<String> takeClosedPages(Tab t) {
    if (current != t) {
      return List.of();
    }
    List<String> taken = List.copyOf(closedPages);
    closedPages.clear();
    return taken;
  }

  /** The pages of the tabs other than the current one. */
  java.util.Set<Page> others() {
    java.util.Set<Page> pages = new java.util.HashSet<>();
    for (Tab t : open) {
      if (t != current) {
        pages.add(t.page);
      }
    }
    return pages;
  }

  /** Something that happened to a tab, for the next observation's page events. */
  void report(String line) {
    events.add(line);
  }

  /**
   * The page events since the last observation: the current tab's, what happened to the tabs, and
   * each other tab's, marked with its number.
   */
  List<String> takePageEvents() {
    List<String> taken = new ArrayList<>(current.guards.takePageEvents());
    taken.addAll(current.console.take());
    taken.addAll(events);
    events.clear();
    addOtherTabs(taken, EnvironmentTabs::untold);
    return taken;
  }

  /**
   * What {@code t} has not told yet: its page events, then its complaints ({@link PageConsole}).
   */
  private static List<String> untold(Tab t) {
    List<String> lines = new ArrayList<>(t.guards.takePageEvents());
    lines.addAll(t.console.take());
    return lines;
  }

  /**
   * Adds each tab's {@code lines} but the current one's to {@code taken}, marked with its number.
   */
  private void addOtherTabs(
      List<String> taken, java.util.function.Function<Tab, List<String>> lines) {
    for (Tab t : List.copyOf(open)) {
      if (t != current) {
        lines.apply(t).forEach(line -> taken.add("tab " + t.id + ": " + line));
      }
    }
  }

  /**
   * Every complaint of the pages since the recording last took them: the current tab's, then each
   * other tab's and each closed tab's, marked with its number ({@link PageConsole#takeRecorded}).
   */
  List<String> takeRecordedComplaints() {
    List<String> taken = new ArrayList<>(current.console.takeRecorded());
    addOtherTabs(taken, t -> t.console.takeRecorded());
    taken.addAll(goneComplaints);
    if (goneComplaintsOver > 0) {
      taken.add(
          "and " + goneComplaintsOver + " more complaint(s) of pages gone, not kept one by one");
    }
    goneComplaints.clear();
    goneComplaintsOver = 0;
    return taken;
  }

  /**
   * The open tabs, the current one marked; {@code currentTitle} is the current tab's title when
   * just observed (null: read it).
   */
  List<PageTab> listing(String currentTitle) {
    List<PageTab> listed = new ArrayList<>();
    // A copy: listing a tab calls the driver, whose events may change the tabs.
    for (Tab t : List.copyOf(open)) {
      listed.add(t.listed(t == current, t == current ? currentTitle : null));
    }
    return listed;
  }

  /** The tabs' URLs as a checkpoint keeps them, the current one marked. */
  BrowserStorage.SavedTabs saved() {
    List<String> urls = new ArrayList<>();
    int at = 0;
    for (Tab t : open) {
      if (t == current) {
        at = urls.size();
      }
      urls.add(t.page.url());
    }
    return new BrowserStorage.SavedTabs(urls, at);
  }

  /** Runs {@code each} for every open tab. */
  void forEach(Consumer<Tab> each) {
    List.copyOf(open).forEach(each);
  }

  /** Whether any tab answers {@code test}. */
  boolean any(Function<Tab, Boolean> test) {
    // A copy: the test may call the driver, whose events may change the tabs (one that crashed).
    return List.copyOf(open).stream().anyMatch(test::apply);
  }

  /**
   * A page the context got: the running action's new tab, or closed (no action runs, or the tab
   * limit is reached). As events arrive.
   */
  private void arrived(Page other) {
    if (creating) {
      arrivedWhileCreating.add(other);
      return;
    }
    if (open.stream().anyMatch(t -> t.page == other)
        || (user.isPresent()
            && !UserTabs.openedBy(other, p -> open.stream().anyMatch(t -> t.page == p)))) {
      return;
    }
    arrivals.arrived();
    if (user.isPresent() && !user.get().windowsAllowed()) {
      closed(
          "the page opened a new window, which was closed: in a person's own browser under"
              + " request-level enforcement, open the address with browser_tabs open");
      other.close();
    } else if (!acting && !personHolds && personLately == 0) {
      closed("the page opened another page, which was closed");
      other.close();
    } else if (open.size() >= max) {
      closed(
          "the page opened a new tab, which was closed: this browser keeps at most "
              + max
              + " tabs (plugins.browser.maxTabs); close one with browser_tabs first");
      other.close();
    } else {
      Tab t = add(other);
      events.add(
          (acting ? actingWhat : "the person the page was handed to")
              + " opened tab "
              + t.id
              + " ("
              + other.url()
              + "): browser_tabs select tab="
              + t.id
              + " shows it");
    }
  }

  /** One reason a page was closed, once however often it recurs before it is reported. */
  private void closed(String reason) {
    if (!closedPages.contains(reason)) {
      closedPages.add(reason);
    }
  }

  /**
   * A tab's page closed without the environment closing it (the page called {@code
   * window.close()}): the tab goes, and when it was current the tab used most recently before it
   * takes its place (a fresh blank one when none is left).
   */
  private void closedItself(Tab t, Page page) {
    if (t.page != page || !open.contains(t) || ending.getAsBoolean()) {
      return;
    }
    leave(t);
    events.add("tab " + t.id + " closed itself");
    if (current == t) {
      selectRecent();
    }
  }

  /**
   * The renderer of tab {@code t}, not the current one, crashed under {@code page}: the tab goes,
   * told in the next page events, and its page is closed.
   */
  void crashed(Tab t, Page page) {
    if (t.page != page || !open.contains(t) || ending.getAsBoolean()) {
      return;
    }
    leave(t);
    events.add("tab " + t.id + "'s page crashed (its renderer died); the tab was closed");
    try {
      page.close();
    } catch (com.microsoft.playwright.PlaywrightException gone) {
      // closed with its renderer already
    }
  }

  /** Makes the most recently used tab current; opens a blank one when none is left. */
  private void selectRecent() {
    var recent = open.stream().max(Comparator.comparingLong(x -> x.selected));
    if (recent.isPresent()) {
      select(recent.get());
      front(recent.get());
    } else {
      select(add(newPage()));
    }
  }

  /** A page the environment opens itself, no action's. */
  private Page newPage() {
    creating = true;
    Page made = null;
    try {
      made = user.isPresent() ? user.get().newTab() : context.newPage();
      return made;
    } finally {
      creating = false;
      // A page's window that opened meanwhile (a script's late window.open) is neither left
      // unwatched nor taken for the environment's own.
      List<Page> others = new ArrayList<>(arrivedWhileCreating);
      arrivedWhileCreating.clear();
      // Taken up only once the page is made: after a failed open, what arrived may be its own
      // page half made (in a person's Chromium, their own tab), and is left as it was.
      for (Page other : made == null ? List.<Page>of() : others) {
        if (other != made) {
          try {
            arrived(other);
          } catch (com.microsoft.playwright.PlaywrightException gone) {
            // it went meanwhile
          }
        }
      }
    }
  }
}
