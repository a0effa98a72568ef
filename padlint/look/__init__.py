"""The first look: can a text have a finding at all, judged before (or instead of) a full parse."""
