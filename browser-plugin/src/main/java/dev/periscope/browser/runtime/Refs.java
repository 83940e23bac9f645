package dev.periscope.browser.runtime;

import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.spi.ProviderElement;
import java.util.Map;
import java.util.Set;

/**
 * The newest observation of an environment with the provider elements behind its refs, and the refs
 * the challenge it shows holds back (every one, and the page itself, when {@code wholePage}).
 */
record Refs(
    Observation observation,
    Map<String, ProviderElement> elementsByRef,
    Set<String> gated,
    boolean wholePage) {}
