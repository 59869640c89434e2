/**
 * The console's entry (bundled by scripts/build.mjs into `dist/server/console/`): the styles and
 * the application, rendered into `#app` of the page the server answers under `/console`.
 */
import { render } from "preact"
import { App, initialTheme } from "./App.js"
import "./styles.css"

// the theme before the first paint: no flash of the light one in a dark setting
document.documentElement.dataset.theme = initialTheme()
render(<App />, document.getElementById("app")!)
