package dev.periscope.api.browser.spi;

import java.util.List;

/**
 * A challenge as the provider recognised it on the observed page ({@link
 * dev.periscope.api.browser.PageChallenge} says what each field means): {@code target} is the
 * target of its own element among the observation's elements (null when none is listed), {@code
 * gated} the targets of the listed elements an action on which cannot go on while it stands (a
 * captcha's own controls, the submit buttons of the form it guards, what a login wall covers), and
 * {@code wholePage} says that no element of the page can be acted on (a challenge page). Since host
 * API 2.5.0.
 *
 * <p>Immutable and thread-safe.
 */
public record ProviderChallenge(
    String kind,
    String vendor,
    String frame,
    String target,
    List<String> gated,
    boolean wholePage) {
  public ProviderChallenge {
    gated = gated == null ? List.of() : List.copyOf(gated);
  }
}
