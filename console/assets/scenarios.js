// zkraft console: guided scenarios of the lab (not written yet).
"use strict";
