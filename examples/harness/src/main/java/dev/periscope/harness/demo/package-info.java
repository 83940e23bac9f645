/**
 * {@code harness demo}: a small site on 127.0.0.1 and a scripted agent session against it in
 * profile {@code demo}.
 */
package dev.periscope.harness.demo;
