package dev.periscope.browser.playwright;

import com.microsoft.playwright.ElementHandle;
import com.microsoft.playwright.Page;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.KeyChord;
import dev.periscope.api.browser.spi.ProviderElement;
import java.util.ArrayList;
import java.util.List;

/**
 * The keyboard's and the fields' actions: typing, filling a field, pressing a key chord, choosing
 * an option, checking a box, uploading files and filling a credential, each letting the page react
 * to its keys ({@link TypingReactions}) before the observation after it.
 */
final class FieldRoom {
  private final PlaywrightEnvironment env;

  FieldRoom(PlaywrightEnvironment env) {
    this.env = env;
  }

  void upload(BrowserAction.Upload action, ProviderElement element) {
    env.guarded(
        "uploading",
        () -> {
          ElementHandle target = env.resolve(element);
          try {
            env.tab()
                .guards
                .choosing(
                    () -> {
                      PointerActions.upload(
                          env.tab().page, env.registryKey(), target, element, action.files());
                      return null;
                    });
          } finally {
            target.dispose();
          }
          env.nextFrame();
          return null;
        });
  }

  void type(BrowserAction.Type action, ProviderElement element) {
    // Key by key from here, each its own call: the step's timeout holds the pauses between keys.
    env.guarded(
        "typing",
        () -> {
          if (element != null) {
            ElementHandle target = env.resolve(element);
            try {
              target.focus();
            } finally {
              target.dispose();
            }
          }
          long typing = watchTyping();
          PointerActions.type(env.tab().page, env.registryKey(), action.text(), action.delayMs());
          env.settle();
          reactionToTyping(typing);
          return null;
        });
  }

  void fill(BrowserAction.Fill action, ProviderElement element) {
    String value = action.value();
    env.guarded(
        "filling the field",
        () -> {
          ElementHandle target = env.resolve(element);
          long typing;
          try {
            typing = watchTyping();
            // All but the last character at once; the last as a key, so that the page's own key
            // handling (an autocomplete's search) runs as it does for a person's typing.
            int last = value.isEmpty() ? 0 : value.offsetByCodePoints(value.length(), -1);
            String key = value.substring(last);
            if (TYPED_LAST.contains(String.valueOf(element.inputType()))
                && !key.isEmpty()
                && !Character.isISOControl(key.codePointAt(0))) {
              target.fill(value.substring(0, last));
              // The caret at the end, wherever the page's handling of the fill put it.
              target.evaluate(CARET_AT_END);
              env.tab().page.keyboard().type(key);
            } else {
              target.fill(value);
            }
          } finally {
            target.dispose();
          }
          reactionToTyping(typing);
          return null;
        });
  }

  /** caret-at-end.js: focuses a field with the caret after its value. */
  private static final String CARET_AT_END = PageScripts.script("caret-at-end");

  /**
   * Empties a field as a person selecting its text and deleting it would (Playwright's fill of
   * nothing: focus, select all, delete): the page's input handlers run, and the observation after
   * it waits for the page's reaction as after a fill.
   */
  void clear(BrowserAction.Clear action, ProviderElement element) {
    env.guarded(
        "clearing the field",
        () -> {
          ElementHandle target = env.resolve(element);
          long typing;
          try {
            typing = watchTyping();
            target.fill("");
          } finally {
            target.dispose();
          }
          reactionToTyping(typing);
          return null;
        });
  }

  /**
   * The kinds of field whose last character browser_fill types as a key (a textarea or an editable
   * element has no input type, "null"); a date, number or colour field takes its whole value at
   * once.
   */
  private static final java.util.Set<String> TYPED_LAST =
      java.util.Set.of("null", "text", "search", "email", "url", "tel");

  /** Watches the page from before the keys; what it returns is for {@link #reactionToTyping}. */
  private long watchTyping() {
    TypingReactions.watch(env.tab().page, env.registryKey());
    return env.tab().guards.dataMark();
  }

  /**
   * Lets the page react to the keys just typed, before the observation after them: its document and
   * the requests for data started since {@code typing} ({@link #watchTyping}).
   */
  private void reactionToTyping(long typing) {
    Tab t = env.tab();
    TypingReactions.settle(
        t.page, env.registryKey(), () -> t.guards.dataUnderWaySince(typing), env.waitsEnd());
  }

  /**
   * Shows {@code guard} every request of the environment from now on ({@link EgressRoutes}): routed
   * the first time, the guard replaced after.
   */
  boolean guardEgress(dev.periscope.api.browser.spi.EgressGuard guard) {
    return env.call(
        "guarding the secret's way out",
        () -> {
          CredentialFields fields = env.credentialFields();
          if (fields.egress == null) {
            fields.egress = new EgressRoutes(env.context(), env.place().user());
          }
          // What the browser's routes do not see (a preconnect's name) the proxy refuses.
          env.proxy()
              .refuseNamesCarrying(
                  (host, port) ->
                      guard
                          .refusal(
                              (port == 443 ? "https://" : "http://") + host + ":" + port + "/",
                              java.util.Map.of(),
                              null)
                          .isPresent());
          return fields.egress.guard(
              guard, line -> env.tab().guards.report(line), env.tabs().all());
        });
  }

  List<String> originChain(ProviderElement element) {
    return env.call(
        "reading the field's origin",
        () -> {
          env.tab().dialogs.requireNone("filling the credential");
          ElementHandle target = env.resolve(element);
          try {
            return CredentialFields.originChain(target);
          } finally {
            target.dispose();
          }
        });
  }

  /**
   * The handle stays with {@link CredentialFields}, which masks the field in every later
   * screenshot.
   */
  int fillCredential(
      ProviderElement element, dev.periscope.api.host.Secret secret, List<String> expectedChain) {
    // Not an action a dialog stops: one the field's handlers open is dismissed and reported, so
    // the fill ends with its field masked and its length known.
    String what = "filling the credential";
    return env.call(
        what,
        () -> {
          Tab t = env.tab();
          t.dialogs.requireNone(what);
          // Marked before the secret goes in: a fill that fails halfway may have put some of it.
          t.secretFilled = true;
          env.scripts().secretOn(expectedChain);
          return ActionPipeline.of(t.navigations, t.guards)
              .run(
                  what,
                  () ->
                      env.credentialFields()
                          .fill(
                              env.resolve(element),
                              element,
                              secret,
                              expectedChain,
                              env.policy().timeouts().actionMs(),
                              env.registryKey()));
        });
  }

  void press(BrowserAction.Press action, ProviderElement element) {
    KeyChord chord = action.chord();
    if (element != null && "file".equals(element.inputType())) {
      env.refuseBeforeDispatch(element);
    }
    env.guarded(
        "pressing " + chord,
        () -> {
          Page page = env.tab().page;
          if (element == null && chord.types()) {
            PointerActions.refuseFocusedPassword(page, env.registryKey());
          }
          ElementHandle target = element == null ? null : env.resolve(element);
          long typing = watchTyping();
          try {
            if (target == null) {
              page.keyboard().press(chord.playwright());
            } else {
              target.press(chord.playwright());
            }
          } catch (RuntimeException | Error failed) {
            // Keys went down: let go of the modifiers, after the answer when a dialog stopped the
            // press (the page takes no input until then).
            if (PageDialogs.stoppedBy(failed)) {
              env.tab().dialogs.afterAnswer(() -> releaseModifiers(page, chord));
            } else {
              releaseModifiers(page, chord);
            }
            throw failed;
          } finally {
            if (target != null) {
              target.dispose();
            }
          }
          env.settle();
          reactionToTyping(typing);
          return null;
        });
  }

  /**
   * Lets go of a chord's modifiers after a press that failed part way (Playwright presses them one
   * by one and releases them only on success), so that no later key or click arrives with Control
   * held. Best effort: a page that is gone holds nothing.
   */
  private static void releaseModifiers(Page page, KeyChord chord) {
    List<String> held = new ArrayList<>();
    for (String modifier : chord.modifiers()) {
      held.addAll(
          modifier.equals("ControlOrMeta") ? List.of("Control", "Meta") : List.of(modifier));
    }
    for (int i = held.size() - 1; i >= 0; i--) {
      try {
        page.keyboard().up(held.get(i));
      } catch (RuntimeException gone) {
        // the page or its connection is gone: nothing is held there any more
      }
    }
  }

  void select(BrowserAction.Select action, ProviderElement element) {
    List<String> values = action.values();
    env.guarded(
        "choosing an option",
        () -> {
          ElementHandle target = env.resolve(element);
          try {
            Choices.select(target, element, values);
          } finally {
            target.dispose();
          }
          return null;
        });
  }

  void check(BrowserAction.Check action, ProviderElement element) {
    boolean checked = action.checked();
    env.guarded(
        checked ? "checking" : "unchecking",
        () -> {
          // A native checkbox or radio button is pressed where a person presses it, which for one
          // drawn as its label is the label (HitTest), and only when it is not as asked already.
          if ("checkbox".equals(element.inputType()) || "radio".equals(element.inputType())) {
            var point =
                PageScripts.readyPoint(
                    env.tab().page, env.tab().observedFrames, env.registryKey(), element);
            if (point.isPresent()) {
              ElementHandle target = env.resolve(element);
              try {
                if (!Boolean.valueOf(checked).equals(target.evaluate("el => el.checked"))) {
                  env.tab().page.mouse().click(point.get().x(), point.get().y());
                  if (!Boolean.valueOf(checked).equals(target.evaluate("el => el.checked"))) {
                    throw BrowserException.of(
                            ErrorCode.BROWSER_ACTION_FAILED,
                            "the click on \""
                                + element.name()
                                + "\" did not "
                                + (checked ? "check" : "uncheck")
                                + " it; the page may handle it otherwise")
                        .withUrl(env.tab().page.url());
                  }
                }
              } finally {
                target.dispose();
              }
              return null;
            }
          }
          ElementHandle target = env.resolve(element);
          try {
            HitTest.Reach reach =
                HitTest.requireUncovered(
                    env.tab().page, target, element, env.registryKey(), "the click");
            target.setChecked(
                checked,
                new ElementHandle.SetCheckedOptions()
                    .setForce(reach.ready())
                    .setPosition(reach.offset()));
          } finally {
            target.dispose();
          }
          return null;
        });
  }
}
