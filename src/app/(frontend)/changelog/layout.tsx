import type React from 'react'

import '../blog/blog.css'
import './changelog.css'

/** The changelog shares the blog's content styles (prose, code, badges) and adds its timeline. */
const ChangelogLayout = ({ children }: { children: React.ReactNode }) => children

export default ChangelogLayout
