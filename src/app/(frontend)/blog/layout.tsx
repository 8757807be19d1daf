import type React from 'react'

import './blog.css'

/** The blog's styles (also used by the changelog): readable measure, type scale, code, dark mode. */
const BlogLayout = ({ children }: { children: React.ReactNode }) => children

export default BlogLayout
