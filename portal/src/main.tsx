import { render } from 'preact';
import { App } from './app.tsx';
import '../../console/src/styles.css';
import './portal.css';

render(<App />, document.getElementById('app') as HTMLElement);
