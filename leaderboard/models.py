# Models for validated results and rankings.
