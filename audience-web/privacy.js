/* The privacy note in the phone's language (the one its switch keeps, the
 * browser's, else English: i18n.js). Words only: nothing else runs here. */
'use strict';
fvI18n.use(fvI18n.phoneLang());
